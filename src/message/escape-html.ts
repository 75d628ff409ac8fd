// Text placed in HTML (a merge tag's value, a shared email's subject, a quoted reply): the five
// characters that could end an element or an attribute, quoted or not, as entities.
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
