/* The search box's results list (loaded by search.js when the browser is idle after load, or on
 * focus). The index lives in a Web Worker (search-worker.js): this file only sends it the
 * queries and draws the answers, so building the index never blocks a tap or a scroll. Where no
 * worker can start (a page opened from file://, where a worker script cannot be read), the
 * same engine (search-engine.js) runs here, building the index in idle slices as before.
 * ASCII only on purpose. */
(function () {
  "use strict";

  var html = document.documentElement;
  var ROOT = html.getAttribute("data-root") || "./";
  var STATIC = html.getAttribute("data-static") || ROOT + "static/";
  var loader = window.bookSearch || {};
  var QUERY = loader.version || "";
  var input, status, list;
  var state = { urgent: false, active: -1, items: [], timer: 0, asked: 0, shown: 0, enter: false, move: 0 };
  var backend = null, resolveReady, rejectReady, resolveSaved;
  var ready = new Promise(function (res, rej) { resolveReady = res; rejectReady = rej; });
  var saved = new Promise(function (res) { resolveSaved = res; });
  ready.catch(function () {});

  function label(name, fallback) {
    return (input && input.getAttribute("data-label-" + name)) || fallback;
  }

  function absolute(url) { return new URL(url, document.baseURI).href; }

  /* search.js (which loads this file) shares its script loader: one copy of it */
  var loadScript = loader.loadScript;

  /* ---- the worker: {search(q) -> Promise<view>, urls(q) -> Promise<[url]>} once ready */

  function workerBackend() {
    var worker = new Worker(STATIC + "search-worker.js" + QUERY), waiting = {}, next = 0;
    var started = new Promise(function (res, rej) {
      worker.onmessage = function (e) {
        var m = e.data;
        if (m.type === "ready") { api.source = m.source; res(); }
        else if (m.type === "saved") resolveSaved(true);
        else if (m.type === "error") rej(new Error(m.message));
        else if (m.type === "results" && waiting[m.id]) { waiting[m.id](m); delete waiting[m.id]; }
      };
      /* a worker script that cannot be read (file://) or fails before "ready" */
      worker.onerror = function (e) { e.preventDefault(); rej(new Error("search worker: " + (e.message || "failed"))); };
    });
    worker.postMessage({ type: "init", index: absolute(ROOT + "search-index.js") });
    function ask(q, urls) {
      return new Promise(function (res) {
        var id = ++next;
        waiting[id] = res;
        worker.postMessage({ type: "query", id: id, q: q, urls: urls });
      });
    }
    return started.then(function () {
      return {
        search: function (q) { return ask(q, false); },
        urls: function (q) { return ask(q, true).then(function (m) { return m.urls; }); }
      };
    }, function (err) { worker.terminate(); throw err; });
  }

  /* ---- no worker: the engine on this page, the index built a few documents at a time while
     the browser is idle; `hurry` (focus, typing) finishes it at once */

  var building = null;
  function whenIdle(step) {
    if (window.requestIdleCallback) return window.requestIdleCallback(step, { timeout: 2000 });
    return setTimeout(function () {
      var end = Date.now() + 8;
      step({ timeRemaining: function () { return Math.max(0, end - Date.now()); } });
    }, 1);
  }

  function pageBackend() {
    return Promise.all([
      window.lunr ? null : loadScript(STATIC + "lunr.min.js" + QUERY),
      loadScript(STATIC + "search-engine.js" + QUERY),
      window.bookSearchIndex ? null : loadScript(ROOT + "search-index.js")
    ]).then(function () {
      var core = window.bookSearchCore, payload = window.bookSearchIndex;
      var b = new core.Indexer(payload, core.charmapFromString(payload.charmap));
      var docs = core.docsOf(payload), i = 0;
      return new Promise(function (res) {
        function step(deadline) {
          while (i < docs.length && (!deadline || deadline.timeRemaining() > 1)) b.add(docs[i++]);
          if (i < docs.length) { whenIdle(step); return; }
          building = null;
          res(new core.Engine(payload, b.build(), b.words));
        }
        building = step;
        if (state.urgent) step(null); else whenIdle(step);
      });
    }).then(function (engine) {
      api.source = "page";
      return {
        search: function (q) { return Promise.resolve(engine.view(q)); },
        urls: function (q) { return Promise.resolve(engine.urls(q)); }
      };
    });
  }

  function hurry() {
    state.urgent = true;
    if (building) building(null);
  }

  /* Start (once) the worker, or the page's engine where there is no worker; `urgent` when the
     reader is waiting (focus, typing), not when prefetched at idle time. */
  var loading = null;
  function load(urgent) {
    if (urgent !== false) hurry();
    if (loading) return loading;
    if (status && state.urgent) status.textContent = label("loading", "Loading\u2026");
    var started;
    try {
      started = window.Worker && location.protocol !== "file:" ? workerBackend() : Promise.reject(new Error("no worker"));
    } catch (e) {
      started = Promise.reject(e);
    }
    loading = started.catch(function () { return pageBackend(); }).then(function (b) {
      backend = b;
      if (status && !(input && input.value)) status.textContent = "";
      resolveReady(api);
      if (input && input.value) update();
    }, function (err) {
      if (status) status.textContent = label("error", "Search is unavailable");
      rejectReady(err);
      throw err;
    });
    loading.catch(function () {});
    return loading;
  }

  /* ---- rendering */

  /* url + ?h=word&h=word (before the #fragment) */
  function withHighlights(url, words) {
    if (!words.length) return url;
    var hash = url.indexOf("#"), base = hash < 0 ? url : url.slice(0, hash);
    var frag = hash < 0 ? "" : url.slice(hash);
    return base + (base.indexOf("?") < 0 ? "?" : "&") +
      words.map(function (w) { return "h=" + encodeURIComponent(w); }).join("&") + frag;
  }

  /* [[text, marked], ...] -> text nodes and <mark>s (never HTML) */
  function draw(parent, segments) {
    segments.forEach(function (s) {
      if (s[1]) {
        var m = document.createElement("mark");
        m.textContent = s[0];
        parent.appendChild(m);
      } else {
        parent.appendChild(document.createTextNode(s[0]));
      }
    });
  }

  function setActive(i) {
    var items = state.items;
    if (state.active >= 0 && items[state.active]) {
      items[state.active].classList.remove("active");
      items[state.active].setAttribute("aria-selected", "false");
    }
    state.active = i;
    if (i >= 0 && items[i]) {
      items[i].classList.add("active");
      items[i].setAttribute("aria-selected", "true");
      input.setAttribute("aria-activedescendant", items[i].id);
      if (items[i].scrollIntoView) items[i].scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function close() {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    setActive(-1);
  }

  function open() {
    if (!list.firstChild) return;
    list.hidden = false;
    input.setAttribute("aria-expanded", "true");
  }

  function clear() {
    while (list.firstChild) list.removeChild(list.firstChild);
    state.items = [];
    state.active = -1;
    input.removeAttribute("aria-activedescendant");
  }

  /* Ask for the box's query; only the answer to the latest question is drawn. */
  function update() {
    clearTimeout(state.timer);
    state.timer = 0;
    var q = input.value, id = ++state.asked;
    if (!q.trim()) {
      state.shown = id;
      state.move = 0;
      clear();
      status.textContent = "";
      close();
      return;
    }
    if (!backend) { load(); return; }
    backend.search(q).then(function (view) {
      if (id !== state.asked) return;
      state.shown = id;
      show(view);
      if (state.move && state.items.length) {   /* arrows pressed while this answer was on its way */
        var n = state.items.length;
        setActive(((state.move > 0 ? state.move - 1 : state.move) % n + n) % n);
      }
      state.move = 0;
      if (state.enter) {
        state.enter = false;
        if (state.items.length) go(state.active < 0 ? 0 : state.active);
      }
    });
  }

  function busy() { return state.timer || state.shown !== state.asked; }

  function show(view) {
    clear();
    view.items.forEach(function (item, i) {
      var li = document.createElement("li");
      li.id = "search-result-" + i;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      var a = document.createElement("a");
      a.href = ROOT + item.url;
      a.tabIndex = -1;
      /* the page opened highlights the words found */
      a.addEventListener("click", function () { a.href = withHighlights(ROOT + item.url, item.words); });
      var title = document.createElement("span");
      title.className = "search-title";
      if (item.chapter) {
        var c = document.createElement("span");
        c.className = "search-chapter";
        c.textContent = item.chapter;
        title.appendChild(c);
      }
      var s = document.createElement("span");
      s.className = "search-section";
      draw(s, item.section);
      title.appendChild(s);
      var p = document.createElement("span");
      p.className = "search-snippet";
      draw(p, item.snippet);
      a.appendChild(title);
      a.appendChild(p);
      li.appendChild(a);
      li.addEventListener("mousemove", function () { if (state.active !== i) setActive(i); });
      list.appendChild(li);
      state.items.push(li);
    });
    var n = view.items.length;
    status.textContent = n ? label("count", "{n} results").replace("{n}", String(n)) : label("none", "No results");
    if (!n && view.suggestion !== null) offerSuggestion(view.suggestion);
    if (n) open(); else close();
  }

  /* No results: offer the query with each unknown word replaced by the nearest indexed one,
     as a button (the engine offers it only when that query finds something). */
  function offerSuggestion(better) {
    var text = label("suggest", "Did you mean {q}?").split("{q}");
    status.textContent = label("none", "No results") + " ";
    var wrap = document.createElement("span");
    wrap.className = "search-suggest";
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = better;
    button.addEventListener("click", function (e) {
      e.stopPropagation();   /* the button is gone after the update: not an outside click */
      input.value = better;
      input.focus();
      update();
    });
    wrap.appendChild(document.createTextNode(text[0]));
    wrap.appendChild(button);
    wrap.appendChild(document.createTextNode(text.slice(1).join("")));
    status.appendChild(wrap);
  }

  /* Coalesce keystrokes typed within one task. */
  function schedule() {
    clearTimeout(state.timer);
    state.timer = setTimeout(update, 0);
  }

  function go(i) {
    var li = state.items[i];
    if (!li) return;
    li.querySelector("a").click();   /* its click handler adds the words to highlight */
  }

  function onKey(e) {
    var n = state.items.length;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      var d = e.key === "ArrowDown" ? 1 : -1;
      if (busy() && input.value.trim()) {
        /* The list on screen answers an older query and is about to be replaced: keep the
           moves and apply them to the new list, or the selection would vanish under the reader. */
        e.preventDefault();
        state.move += d;
        if (state.timer) update();
        return;
      }
      if (!n) return;
      e.preventDefault();
      open();
      setActive(state.active < 0 ? (d > 0 ? 0 : n - 1) : (state.active + d + n) % n);
    } else if (e.key === "Enter") {
      if (busy() && input.value.trim()) {   /* the answer is on its way: open it when it comes */
        e.preventDefault();
        state.enter = true;
        if (state.timer) update();
        return;
      }
      if (!n) return;
      e.preventDefault();
      go(state.active < 0 ? 0 : state.active);
    } else if (e.key === "Escape") {
      e.preventDefault();
      if (!list.hidden) {
        close();
      } else {
        input.value = "";
        state.shown = ++state.asked;
        status.textContent = "";
        clear();
        input.blur();
      }
    }
  }

  function init() {
    input = document.getElementById("search-input");
    status = document.getElementById("search-status");
    list = document.getElementById("search-results");
    if (!input || !list || !status) return;
    input.addEventListener("focus", function () { load(); open(); });
    input.addEventListener("input", function () { load(); schedule(); });
    input.addEventListener("keydown", onKey);
    document.addEventListener("click", function (e) {
      var box = input.closest(".search") || input.parentNode;
      if (!box.contains(e.target)) close();
    });
  }

  var api = {
    ready: ready,
    saved: saved,    /* resolves when a built index is in the cache (not when it came from it) */
    source: null,    /* "cache" or "built" (in the worker), "page" (no worker) */
    load: load,
    query: function (q) { return ready.then(function () { return backend.urls(q); }); }
  };
  window.bookSearchUI = api;
  init();   /* loaded after DOMContentLoaded, by search.js */
})();
