/**
 * How ServiceAuth is made of parts instead of inheriting them: each public member of a part's
 * class is defined once on ServiceAuth's prototype as a hand-over to that instance's part
 * (a method calls the part's; an accessor, or a field named in `fields`, reads the part's).
 * ServiceAuth's type declares the same members by extending the parts' classes as an interface
 * (service-auth.ts), so each member is written and documented once, where it is implemented.
 */
export function handOver<F extends object, P extends object>(
  facade: { prototype: F },
  partOf: (facade: F) => P,
  part: { prototype: P },
  fields: readonly (keyof P & string)[] = [],
): void {
  const members = Object.getOwnPropertyNames(part.prototype).filter((name) => name !== 'constructor');
  for (const name of [...members, ...fields]) {
    // Two parts (or a part and ServiceAuth itself) naming one member would hide one of them.
    if (Object.hasOwn(facade.prototype, name)) throw new TypeError(`ServiceAuth: ${name} is defined twice`);
    const method: unknown = Object.getOwnPropertyDescriptor(part.prototype, name)?.value;
    if (typeof method === 'function') {
      const value = function (this: F, ...args: unknown[]): unknown {
        return Reflect.apply(method, partOf(this), args);
      };
      Object.defineProperty(value, 'name', { value: name });
      Object.defineProperty(facade.prototype, name, { value, writable: true, configurable: true });
    } else {
      const get = function (this: F): unknown {
        return Reflect.get(partOf(this), name);
      };
      Object.defineProperty(facade.prototype, name, { get, configurable: true });
    }
  }
}
