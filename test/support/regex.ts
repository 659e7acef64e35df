/**
 * One pattern written as several regex literals, for a message too long for one line: the parts' sources joined in
 * order (each part keeps its own escapes), with every flag any part has.
 */
export function joinRegex(...parts: RegExp[]): RegExp {
  const flags = [...new Set(parts.flatMap((p) => [...p.flags]))].join('');
  return new RegExp(parts.map((p) => p.source).join(''), flags);
}
