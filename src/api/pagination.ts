// Page arithmetic and page URLs shared by the paginated responses. URLs keep the request's
// query parameters and set `page`; the base is ANALYTICS_PUBLIC_URL or the request's
// (validated) host.

import type { FastifyRequest } from "fastify";
import { requestOrigin } from "./request-origin.js";

export interface PageWindow {
  currentPage: number;
  lastPage: number;
  perPage: number;
  total: number;
  /** 1-based position of the first and last item on this page; null when the page is empty. */
  from: number | null;
  to: number | null;
}

export function pageWindow(total: number, page: number, perPage: number, itemsOnPage: number): PageWindow {
  const from = itemsOnPage > 0 ? (page - 1) * perPage + 1 : null;
  return {
    currentPage: page,
    lastPage: Math.max(1, Math.ceil(total / perPage)),
    perPage,
    total,
    from,
    to: from === null ? null : from + itemsOnPage - 1,
  };
}

/**
 * The list envelope of the websites and users APIs around one page of `data`:
 * `{data, links, meta, status}` (CONTRACT.md section 3.4).
 */
export function listEnvelope<T>(
  request: FastifyRequest,
  publicUrl: string | null,
  data: T[],
  total: number,
  { page, perPage }: { page: number; perPage: number },
) {
  const window = pageWindow(total, page, perPage, data.length);
  const urls = new PageUrls(request, publicUrl);
  return {
    data,
    links: {
      first: urls.page(1),
      last: urls.page(window.lastPage),
      prev: page > 1 ? urls.page(page - 1) : null,
      next: page < window.lastPage ? urls.page(page + 1) : null,
    },
    meta: {
      current_page: page,
      from: window.from,
      last_page: window.lastPage,
      path: urls.path,
      per_page: perPage,
      to: window.to,
      total,
    },
    status: 200 as const,
  };
}

export class PageUrls {
  readonly path: string;
  private readonly query: URLSearchParams;

  constructor(request: FastifyRequest, publicUrl: string | null) {
    const origin = publicUrl ?? requestOrigin(request);
    const [pathname = "", search = ""] = request.url.split("?", 2);
    this.path = `${origin}${pathname}`;
    this.query = new URLSearchParams(search);
  }

  page(page: number): string {
    const query = new URLSearchParams(this.query);
    query.set("page", String(page));
    return `${this.path}?${query.toString()}`;
  }
}
