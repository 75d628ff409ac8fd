// The resend SDK's declarations as the contract of record: which public methods it has (read
// from the class declarations, so a new SDK release's methods appear here by themselves) and
// whether an answer Postline sent is assignable to the type the SDK declares for it (checked
// by the TypeScript compiler, in memory, with exact optional properties and excess-property
// checks: an extra field, a null where the SDK says optional, a wrong literal all fail).
import { createRequire } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

const require = createRequire(import.meta.url);
const DECLARATIONS = path.join(path.dirname(require.resolve('resend')), 'index.d.mts');
const ROOT = path.resolve(path.dirname(DECLARATIONS), '../../..');

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noEmit: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  types: [],
};

function program(files: Record<string, string>): ts.Program {
  const host = ts.createCompilerHost(OPTIONS);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (f) => f in files || ts.sys.fileExists(f);
  host.readFile = (f) => files[f] ?? readFile(f);
  host.getSourceFile = (f, language) => (f in files ? ts.createSourceFile(f, files[f]!, language, true) : getSourceFile(f, language));
  return ts.createProgram(Object.keys(files), OPTIONS, host);
}

/**
 * Every public method reachable from a `Resend` instance, as paths like "emails.receiving.get".
 * A class reached by two properties (segments and its alias audiences) is listed once, under
 * the first.
 */
export function declaredSdkMethods(): string[] {
  const file = path.join(ROOT, '__sdk_surface__.ts');
  const p = program({ [file]: `import type { Resend } from 'resend';\nexport declare const resend: Resend;\n` });
  const checker = p.getTypeChecker();
  const source = p.getSourceFile(file)!;
  const resendType = checker.getTypeAtLocation((source.statements[1] as ts.VariableStatement).declarationList.declarations[0]!.name);
  const methods: string[] = [];
  const seen = new Set<ts.Symbol>();
  const isPublic = (s: ts.Symbol) =>
    (s.valueDeclaration ?? s.declarations?.[0]) !== undefined &&
    !(ts.getCombinedModifierFlags((s.valueDeclaration ?? s.declarations![0]!) as ts.Declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected));
  const walk = (type: ts.Type, prefix: string) => {
    for (const property of checker.getPropertiesOfType(type)) {
      if (!isPublic(property)) continue;
      const declaration = property.valueDeclaration ?? property.declarations![0]!;
      if (ts.isMethodDeclaration(declaration)) {
        // The client's own request helpers (get, post, ...) are not resource methods.
        if (prefix !== '') methods.push(prefix + property.name);
        continue;
      }
      const propertyType = checker.getTypeOfSymbolAtLocation(property, declaration);
      const classSymbol = propertyType.getSymbol();
      const isResourceClass = classSymbol?.declarations?.some((d) => ts.isClassDeclaration(d) && d.getSourceFile().fileName === DECLARATIONS);
      if (!classSymbol || !isResourceClass || seen.has(classSymbol)) continue;
      seen.add(classSymbol);
      walk(propertyType, `${prefix}${property.name}.`);
    }
  };
  walk(resendType, '');
  return methods.sort();
}

export interface Answer {
  /** The SDK method that produced it, e.g. "domains.get"; its declared success `data` type is the target. */
  method: string;
  data: unknown;
  /** Instead of the method's answer type, this type: an expression over the SDK's exports, imported as `Sdk`. */
  type?: string;
}

/** The compiler's complaints about each answer, by index into `answers` (absent: it type-checks). */
export function typeCheckAnswers(answers: Answer[]): Map<number, string[]> {
  const lines = [
    `import type { Resend } from 'resend';`,
    `import type * as Sdk from 'resend';`,
    `type DataOf<R> = R extends { error: null; data: infer D } ? D : never;`,
    `type Success<F> = F extends (...args: any[]) => PromiseLike<infer R> ? DataOf<R> : never;`,
  ];
  const firstLine = lines.length;
  answers.forEach((answer, i) => {
    const methodType = `Success<Resend${answer.method
      .split('.')
      .map((k) => `[${JSON.stringify(k)}]`)
      .join('')}>`;
    lines.push(`export const answer${i}: ${answer.type ?? methodType} = ${JSON.stringify(answer.data)};`);
  });
  const file = path.join(ROOT, '__sdk_answers__.ts');
  const p = program({ [file]: lines.join('\n') });
  const source = p.getSourceFile(file)!;
  const problems = new Map<number, string[]>();
  for (const d of [...p.getSyntacticDiagnostics(source), ...p.getSemanticDiagnostics(source)]) {
    const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
    const index = line - firstLine;
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n  ');
    problems.set(index, [...(problems.get(index) ?? []), text]);
  }
  return problems;
}
