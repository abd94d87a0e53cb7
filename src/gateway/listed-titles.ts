import { escapeText } from '../latch/escape.js';
import { isPlainObject } from '../values.js';

/**
 * A listed tool, prompt, resource or template with the titles a client shows escaped: `title` and
 * `annotations.title` are display names only (clients show them instead of the name), so escaping
 * changes nothing a call sends back, and a server's title cannot carry an ANSI escape, a bidi
 * control or a line that imitates the gateway's prompt (docs/threat-model.md, "What a server sends
 * through the protocol"; round 17 review of hostile servers, 5). Unchanged entries are returned as they are.
 */
export function withEscapedTitles<T extends object>(entry: T): T {
  const { title, annotations } = entry as { title?: unknown; annotations?: unknown };
  const escapedTitle = typeof title === 'string' ? escapeText(title) : title;
  const annotationTitle = isPlainObject(annotations) && typeof annotations.title === 'string' ? annotations.title : undefined;
  const escapedAnnotation = annotationTitle === undefined ? undefined : escapeText(annotationTitle);
  if (escapedTitle === title && escapedAnnotation === annotationTitle) return entry;
  return {
    ...entry,
    ...(escapedTitle !== title ? { title: escapedTitle } : {}),
    ...(escapedAnnotation !== annotationTitle ? { annotations: { ...(annotations as object), title: escapedAnnotation } } : {}),
  };
}
