/**
 * TypeDoc plugin: the category of every root export is the group it is listed under in
 * src/index.ts (`// <title>` followed by its `export { ... } from` lines), so the grouping is
 * written once, where the surface is declared. A declaration's own `@category` tag wins.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Comment, CommentTag, Converter, ReflectionKind } from 'typedoc';

const INDEX = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'index.ts');

/** name -> category title, from src/index.ts. */
export function categoriesOfIndex(text) {
  const map = new Map();
  let title;
  for (const line of text.split('\n')) {
    const c = /^\/\/ (.+)$/.exec(line);
    if (c) {
      title = c[1].trim();
      continue;
    }
    const e = /^export (?:type )?\{([^}]*)\} from/.exec(line);
    if (!e || !title) continue;
    for (let item of e[1].split(',')) {
      item = item.trim().replace(/^type /, '');
      if (!item) continue;
      const as = / as (\w+)$/.exec(item);
      map.set(as ? as[1] : item, title);
    }
  }
  return map;
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  const map = categoriesOfIndex(fs.readFileSync(INDEX, 'utf8'));
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    const project = context.project;
    for (const r of project.getReflectionsByKind(ReflectionKind.SomeExport)) {
      // Children of an entry point (`index`, `internals`), or of the project with a single entry point.
      if (r.parent !== project && !r.parent?.kindOf(ReflectionKind.Module)) continue;
      const title = map.get(r.name);
      if (!title) continue;
      // Functions carry their comment on the signature; the category tag belongs on the declaration.
      r.comment ??= new Comment();
      if (!r.comment.blockTags.some((t) => t.tag === '@category')) r.comment.blockTags.push(new CommentTag('@category', [{ kind: 'text', text: title }]));
    }
  });
}
