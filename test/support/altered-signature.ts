/** A signature changed in its last two characters, never equal to the real one (a real one may end in "AA"). */
export function alteredSignature(signature: string): string {
  return `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
}
