// Whether a page reads at phone width without scrolling sideways: [] when the document is no
// wider than the viewport, else the elements that stick out past its right edge (those in a
// box that scrolls on its own, like a wide table, excepted unless absolutely positioned, which
// escapes such a box), described so a failure says what to fix.
import type { Page } from 'playwright-core';

export function overflowing(page: Page): Promise<string[]> {
  // No named functions inside: the test runner's transform would make them call a helper the page lacks.
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= width) return [];
    const found: string[] = [];
    for (const e of document.querySelectorAll('body *')) {
      const right = e.getBoundingClientRect().right;
      if (right <= width + 1) continue;
      let contained = false;
      if (getComputedStyle(e).position !== 'absolute') {
        for (let p = e.parentElement; p && !contained; p = p.parentElement) contained = ['auto', 'scroll', 'hidden'].includes(getComputedStyle(p).overflowX);
      }
      if (!contained)
        found.push(`${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${String(e.className).split(' ').join('.')} (right ${Math.round(right)} > ${width})`);
    }
    return found.length ? found : [`the document is ${document.documentElement.scrollWidth} px wide`];
  });
}
