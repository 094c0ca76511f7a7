/** A tiny XML writer for ClickHouse/Keeper configs: nested objects become elements, arrays repeat them. */
export type XmlValue = string | number | boolean | XmlElement | readonly XmlValue[];
export interface XmlElement {
  readonly [tag: string]: XmlValue | undefined;
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function render(tag: string, value: XmlValue, depth: number): string {
  const indent = '  '.repeat(depth);
  if (Array.isArray(value)) return value.map((item) => render(tag, item, depth)).join('');
  if (typeof value === 'object') {
    const children = Object.entries(value as XmlElement)
      .filter((entry): entry is [string, XmlValue] => entry[1] !== undefined)
      .map(([child, childValue]) => render(child, childValue, depth + 1))
      .join('');
    return `${indent}<${tag}>\n${children}${indent}</${tag}>\n`;
  }
  const text = typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
  return `${indent}<${tag}>${escapeText(text)}</${tag}>\n`;
}

export function toXml(root: string, body: XmlElement): string {
  return `<?xml version="1.0"?>\n${render(root, body, 0)}`;
}
