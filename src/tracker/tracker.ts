// The tracking script served at /js/script.js. Cookieless and storage-free: it sends a
// pageview on load and on SPA navigation (pushState, popstate; the previous URL is the
// referrer), and exposes window.pa.track({name, value, unit}) for custom events. Hits go
// out with sendBeacon as text/plain (no CORS preflight), or fetch keepalive as fallback.
// Kept tiny on purpose: it is downloaded by every visitor of every tracked page.

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

  const send = (referrer: string, event?: TrackedEvent) => {
    if (optedOut) return;
    const body = JSON.stringify({
      page: location.href,
      referrer,
      screen_resolution: `${screen.width}x${screen.height}`,
      event,
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

  const navigated = () => {
    if (location.href === current) return;
    const previous = current;
    current = location.href;
    send(previous);
  };

  const pushState = history.pushState;
  history.pushState = function (this: History, ...args: Parameters<History["pushState"]>) {
    pushState.apply(this, args);
    navigated();
  };
  win.addEventListener("popstate", navigated);
  win.pa = {
    track: (event) => send(doc.referrer, { name: event.name, value: event.value, unit: event.unit }),
  };
  send(doc.referrer);
})(window, document);
