// The network observer of device verification's browsers (never an agent's browser, never the
// owner's sign-in view). It runs in the page's main world at document creation, before any
// page script, because fetch, XMLHttpRequest and EventSource objects live there and Qt
// WebEngine 6.4 shows the embedder neither their completion nor their response headers
// (docs/decisions/0009). It counts the page's own requests in flight: a fetch until its body
// has arrived, an XMLHttpRequest until loadend, an EventSource until it opens or fails; a
// fetch or XMLHttpRequest answered 200 with the media type text/event-stream counts as
// finished when its headers arrive, so a stream the page keeps open does not hold the wait.
// It reads no request or response content beyond the status and the media type, keeps no URL,
// and reports only counts. The page can reach and falsify it, but only its own evidence:
// that can make its own sign-in fail verification, never make another site's session ready.
(function () {
  'use strict';
  const KEY = '@KEY@';
  const win = window;
  const perf = win.performance;
  const stringify = JSON.stringify;
  const defineProperty = Object.defineProperty;
  const now = function () { return perf.now(); };

  let inFlight = 0;
  let lastChange = now();
  let contentLoaded = false;
  // Set on the document being replaced when a navigation starts: its answers no longer count.
  let replaced = false;

  function begin() {
    inFlight++;
    lastChange = now();
    let open = true;
    return function end() {
      if (!open) return;
      open = false;
      inFlight--;
      lastChange = now();
    };
  }

  function isEventStream(status, type) {
    return status === 200 && typeof type === 'string' &&
      /^\s*text\/event-stream\s*(;|$)/i.test(type);
  }

  win.document.addEventListener('DOMContentLoaded', function () {
    contentLoaded = true;
    lastChange = now();
  }, { once: true, capture: true });

  const fetchFn = win.fetch;
  if (typeof fetchFn === 'function') {
    win.fetch = function fetch() {
      const end = begin();
      let answer;
      try {
        answer = fetchFn.apply(this, arguments);
      } catch (e) {
        end();
        throw e;
      }
      // Attached before the page gets the promise, so this runs before the page reads the body.
      answer.then(function (response) {
        try {
          if (isEventStream(response.status, response.headers.get('content-type'))) {
            end();
            return;
          }
          response.clone().arrayBuffer().then(end, end);
        } catch (e) {
          end();
        }
      }, end);
      return answer;
    };
  }

  const xhr = win.XMLHttpRequest;
  if (typeof xhr === 'function' && xhr.prototype && typeof xhr.prototype.send === 'function') {
    const send = xhr.prototype.send;
    xhr.prototype.send = function () {
      const request = this;
      const end = begin();
      request.addEventListener('readystatechange', function () {
        if (request.readyState === 2 &&
            isEventStream(request.status, request.getResponseHeader('content-type')))
          end();
      });
      request.addEventListener('loadend', end);
      try {
        return send.apply(this, arguments);
      } catch (e) {
        end();
        throw e;
      }
    };
  }

  const source = win.EventSource;
  if (typeof source === 'function') {
    const observed = function EventSource(url, init) {
      const stream = arguments.length > 1 ? new source(url, init) : new source(url);
      const end = begin();
      stream.addEventListener('open', end);
      stream.addEventListener('error', end);
      return stream;
    };
    observed.prototype = source.prototype;
    for (const name of ['CONNECTING', 'OPEN', 'CLOSED'])
      defineProperty(observed, name, { value: source[name] });
    win.EventSource = observed;
  }

  defineProperty(win, KEY, {
    value: Object.freeze({
      probe: function () {
        if (replaced) return stringify({ ok: false });
        const quiet = Math.floor(now() - lastChange);
        return stringify({
          ok: true,
          loaded: contentLoaded,
          inFlight: inFlight,
          quietMs: quiet > 0 ? quiet : 0,
        });
      },
      replace: function () {
        replaced = true;
        return stringify({ ok: true });
      },
    }),
    writable: false,
    enumerable: false,
    configurable: false,
  });
})();
