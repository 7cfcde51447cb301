// The tracking script served at /js/script.js. Cookieless and storage-free: it sends a
// pageview on load and on SPA navigation (pushState, popstate; the previous URL is the
// referrer), an engagement when a page that was shown is hidden or left (so a visit lasts
// until then, and a one-page visit has a duration), and exposes
// window.pa.track({name, value, unit}) for custom events. Hits go out with sendBeacon as
// text/plain (no CORS preflight), or fetch keepalive as fallback. Kept tiny on purpose: it
// is downloaded by every visitor of every tracked page.

interface TrackedEvent {
  name: string;
  value?: string | number;
  unit?: string;
}

((win: Window & { pa?: { track(event: TrackedEvent): void } }, doc: Document) => {
  const script = doc.currentScript as HTMLScriptElement | null;
  if (!script) return;
  const host = script.getAttribute("data-host") || new URL(script.src).origin;
  const endpoint = `${host.replace(/\/+$/, "")}/api/event`;
  const optedOut = script.getAttribute("data-dnt") === "true" && navigator.doNotTrack === "1";
  let current = location.href;
  // Whether the page was shown since its last engagement was sent.
  let shown = doc.visibilityState === "visible";

  const send = (fields: object) => {
    if (optedOut) return;
    const body = JSON.stringify({
      page: location.href,
      screen_resolution: `${screen.width}x${screen.height}`,
      ...fields,
    });
    if (!navigator.sendBeacon?.(endpoint, body)) {
      fetch(endpoint, {
        method: "POST",
        body,
        keepalive: true,
        headers: { "Content-Type": "text/plain" },
      }).catch(() => undefined);
    }
  };

  /** Says `page` was looked at until now, if it was shown since the last time this was said. */
  const engaged = (page: string) => {
    if (shown) send({ page, engagement: true });
    shown = false;
  };

  const navigated = () => {
    if (location.href === current) return;
    const previous = current;
    current = location.href;
    engaged(previous);
    shown = doc.visibilityState === "visible";
    send({ referrer: previous });
  };

  const pushState = history.pushState;
  history.pushState = function (this: History, ...args: Parameters<History["pushState"]>) {
    pushState.apply(this, args);
    navigated();
  };
  win.addEventListener("popstate", navigated);
  doc.addEventListener("visibilitychange", () => {
    if (doc.visibilityState === "hidden") engaged(current);
    else shown = true;
  });
  win.addEventListener("pagehide", () => engaged(current));
  win.pa = {
    track: (event) =>
      send({ referrer: doc.referrer, event: { name: event.name, value: event.value, unit: event.unit } }),
  };
  send({ referrer: doc.referrer });
})(window, document);
