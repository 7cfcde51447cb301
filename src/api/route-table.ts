// Remembers the routes of a scope so an unmatched request can be told apart: a known
// path with another method is a 405 with `Allow`, anything else a 404.

export class RouteTable {
  private readonly routes: { pattern: RegExp; methods: Set<string> }[] = [];

  add(url: string, methods: string | string[]): void {
    const source = url
      .split("/")
      .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/");
    // Exact: Fastify serves no path with a trailing slash, so neither is one known here (a
    // 405 naming the very method used, for `/websites/1/`, said nothing true).
    const pattern = new RegExp(`^${source}$`);
    let route = this.routes.find((r) => r.pattern.source === pattern.source);
    if (!route) {
      route = { pattern, methods: new Set() };
      this.routes.push(route);
    }
    for (const method of [methods].flat()) route.methods.add(method.toUpperCase());
  }

  /** The methods served on this path, sorted; empty when the path is unknown. */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.routes) {
      if (route.pattern.test(path)) for (const method of route.methods) methods.add(method);
    }
    return [...methods].sort();
  }
}
