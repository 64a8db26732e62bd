/**
 * How a JavaScript value travels from the model's process to the host in a split test's report: JSON, with
 * what JSON cannot say tagged as a one-key object (`{"u":0}` undefined, `{"num":"NaN"}`, `{"big":"12"}`,
 * `{"map":[[k,v]]}`, `{"set":[v]}`, `{"date":ms}`, `{"obj":{…}}` every object that is not an array,
 * `{"other":"function"}`). The host rebuilds plain values from it and runs node's own assert on them, so a
 * check means what it meant in the test; a rebuilt value is data, never the model's object (no forged
 * prototype, getter or `valueOf` reaches the host).
 */

/** How deep a reported value may nest (node's own deepEqual recurses as deep on the host). */
const MAX_DEPTH = 200;

/** The serialiser, as JavaScript the model's program starts with: `__fuseboxReport(site, () => actual)`. */
export const JAVASCRIPT_REPORTER = `const __fuseboxReport = ((stdout, write, stringify, isArray, keys, isFinite, is) => {
  const MAX_DEPTH = ${MAX_DEPTH};
  const encode = (value, depth) => {
    if (depth > MAX_DEPTH) throw new RangeError('the value is nested too deeply to report');
    switch (typeof value) {
      case 'undefined': return { u: 0 };
      case 'boolean': case 'string': return value;
      case 'number': return isFinite(value) && !is(value, -0) ? value : { num: is(value, -0) ? '-0' : String(value) };
      case 'bigint': return { big: String(value) };
      case 'object': if (value === null) return null; break;
      default: return { other: typeof value };
    }
    if (isArray(value)) { const items = []; for (let i = 0; i < value.length; i++) items.push(encode(value[i], depth + 1)); return items; }
    if (value instanceof Map) return { map: [...value].map(([k, v]) => [encode(k, depth + 1), encode(v, depth + 1)]) };
    if (value instanceof Set) return { set: [...value].map((v) => encode(v, depth + 1)) };
    if (value instanceof Date) return { date: value.getTime() };
    const fields = {};
    for (const key of keys(value)) fields[key] = encode(value[key], depth + 1);
    return { obj: fields };
  };
  return (site, actual) => {
    let report;
    try { report = { value: encode(actual(), 0) }; } catch (error) { report = { threw: String(error && error.stack || error).slice(0, 2000) }; }
    write.call(stdout, '\\nfusebox-report ' + site + ' ' + stringify(report) + '\\n');
  };
})(process.stdout, process.stdout.write, JSON.stringify, Array.isArray, Object.keys, Number.isFinite, Object.is);
`;

/** A report the model's process printed: the value it computed, or what it threw. */
export type Reported = { value: unknown } | { threw: string };

const NUMBER_TAGS: Record<string, number> = {
  NaN: Number.NaN,
  Infinity: Infinity,
  '-Infinity': -Infinity,
  '-0': -0,
};

/** The report's value, rebuilt; undefined when the text is no report this serialiser could have printed. */
export function decodeReport(text: string): Reported | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  const fields = Object.keys(parsed);
  if (fields.length !== 1) return undefined;
  if (typeof parsed.threw === 'string') return { threw: parsed.threw };
  if (!('value' in parsed)) return undefined;
  try {
    return { value: decode(parsed.value, 0) };
  } catch {
    return undefined;
  }
}

class BadReport extends Error {}

function decode(encoded: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH + 1) throw new BadReport('too deep');
  if (encoded === null || ['boolean', 'string', 'number'].includes(typeof encoded)) return encoded;
  if (Array.isArray(encoded)) return encoded.map((item) => decode(item, depth + 1));
  if (!isRecord(encoded)) throw new BadReport('not a value');
  const [tag, more] = Object.keys(encoded);
  if (tag === undefined || more !== undefined) throw new BadReport('not one tag');
  const body = encoded[tag];
  switch (tag) {
    case 'u':
      return undefined;
    case 'num':
      if (typeof body === 'string' && body in NUMBER_TAGS) return NUMBER_TAGS[body];
      break;
    case 'big':
      if (typeof body === 'string' && /^-?\d{1,4096}$/.test(body)) return BigInt(body);
      break;
    case 'map':
      if (Array.isArray(body))
        return new Map(
          body.map((entry) => {
            if (!Array.isArray(entry) || entry.length !== 2) throw new BadReport('not an entry');
            return [decode(entry[0], depth + 1), decode(entry[1], depth + 1)] as const;
          }),
        );
      break;
    case 'set':
      if (Array.isArray(body)) return new Set(body.map((item) => decode(item, depth + 1)));
      break;
    case 'date':
      if (typeof body === 'number') return new Date(body);
      break;
    case 'obj':
      if (isRecord(body)) {
        const object: Record<string, unknown> = {};
        // defineProperty: a field named __proto__ is a field, as it was in the model's object.
        for (const [key, value] of Object.entries(body))
          Object.defineProperty(object, key, {
            value: decode(value, depth + 1),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        return object;
      }
      break;
    case 'other':
      // A function or a symbol: equal to nothing a test can write as a literal.
      if (typeof body === 'string') return Symbol(body);
      break;
  }
  throw new BadReport(`bad ${tag}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
