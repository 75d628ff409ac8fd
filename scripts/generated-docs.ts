// The generated parts of the docs: text between `<!-- NAME: … -->` and `<!-- /NAME -->`.

const markers = (name: string) => new RegExp(`(<!-- ${name}:[^\\n]*-->\\n)[\\s\\S]*?(\\n<!-- /${name} -->)`);

/** The part called `name` of `doc`, or undefined when its markers are missing. */
export function generatedPart(doc: string, name: string): string | undefined {
  const match = markers(name).exec(doc);
  return match ? match[0].slice(match[1]!.length, match[0].length - match[2]!.length) : undefined;
}

/** `doc` with the part called `name` replaced by `content`. */
export function withGenerated(doc: string, name: string, content: string): string {
  if (!markers(name).test(doc)) throw new Error(`no <!-- ${name}: --> … <!-- /${name} --> markers`);
  return doc.replace(markers(name), (_all, open: string, close: string) => `${open}${content}${close}`);
}
