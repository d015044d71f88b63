/* Book search on every page (small: it is in each page's critical bytes): loads the results
 * list (search-ui.js, which starts the search worker) when the browser is idle after load (not
 * with Save-Data: then on focus), "/" focuses the box, and the page a result opened highlights
 * the words (?h=).
 * ASCII only on purpose. */
(function () {
  "use strict";

  var html = document.documentElement;
  var ROOT = html.getAttribute("data-root") || "./";
  var STATIC = html.getAttribute("data-static") || ROOT + "static/";
  /* the page's ?v= (asset version) on search.js, passed on: engine and loader change together */
  var script = document.currentScript, QUERY = script && script.src.indexOf("?") >= 0
    ? script.src.slice(script.src.indexOf("?")) : "";
  /* search.css is not in the critical path: linked for print, switched to all media here
     (an onload attribute would be inline script, which the page's policy refuses) */
  [].forEach.call(document.querySelectorAll("link[data-media]"), function (l) {
    l.media = l.getAttribute("data-media");
  });
  var ui = null, resolveReady, rejectReady, resolveSaved;
  var ready = new Promise(function (res, rej) { resolveReady = res; rejectReady = rej; });
  var saved = new Promise(function (res) { resolveSaved = res; });
  ready.catch(function () {});

  function isCJK(ch) {
    return /^[\u2E80-\u9FFF\uAC00-\uD7AF\uF900-\uFAFF\u{20000}-\u{3FFFF}]$/u.test(ch);
  }

  function loadScript(src) {
    return new Promise(function (res, rej) {
      var el = document.createElement("script");
      el.src = src;
      el.charset = "utf-8";
      el.async = false;   /* fetched in parallel, run in this order */
      el.onload = function () { res(); };
      el.onerror = function () { rej(new Error("cannot load " + src)); };
      document.head.appendChild(el);
    });
  }

  /* The results list (search-ui.js), which starts the search worker: the index is built or
     loaded there, off this page's main thread (`urgent` when the reader is waiting: focus,
     typing). */
  function load(urgent) {
    if (!ui) {
      ui = loadScript(STATIC + "search-ui.js" + QUERY).then(function () { return window.bookSearchUI; });
      ui.then(function (u) {
        u.ready.then(function () { api.source = u.source; resolveReady(api); }, rejectReady);
        u.saved.then(function () { resolveSaved(true); });
      }, rejectReady);
    }
    return ui.then(function (u) { return u.load(urgent); });
  }

  function whenIdle(fn) {
    if (window.requestIdleCallback) window.requestIdleCallback(fn, { timeout: 2000 });
    else setTimeout(fn, 1);
  }

  /* Not when the reader asked to save data: then the index loads on focus. */
  function prefetch() {
    var c = navigator.connection;
    if (c && (c.saveData || /2g/.test(c.effectiveType || ""))) return;
    whenIdle(function () { load(false).catch(function () {}); });
  }

  /* Highlight ?h= words, scroll to the first at or after the #target, drop ?h= from the
     address (a reload or a shared link shows the page plain). */
  function highlightPage() {
    var params = new URLSearchParams(window.location.search), words = params.getAll("h");
    if (!words.length) return;
    params.delete("h");
    var rest = params.toString();
    try {
      history.replaceState(history.state, "", window.location.pathname + (rest ? "?" + rest : "") +
                           window.location.hash);
    } catch (e) { /* file:// in some browsers: keep the address */ }
    var scope = document.querySelector("main") || document.body;
    var alternatives = words.filter(Boolean).map(function (w) {
      var e = w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      /* a Latin word only as a whole word (not "cache" inside "cached"): */
      return /^[\p{L}\p{N}]/u.test(w) && !isCJK(Array.from(w)[0]) ? "(?<![\\p{L}\\p{N}])" + e + "(?![\\p{L}\\p{N}])" : e;
    }).sort(function (a, b) { return b.length - a.length; });
    if (!alternatives.length) return;
    var re = new RegExp(alternatives.join("|"), "giu");
    var walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT, {
      acceptNode: function (node) {
        var el = node.parentElement;
        return !el || el.closest("script, style, .katex, svg, .search, header, nav, mark")
          ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
      }
    });
    var nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    var marks = [];
    nodes.forEach(function (node) {
      var text = node.nodeValue, m, last = 0, frag = null;
      re.lastIndex = 0;
      while ((m = re.exec(text)) !== null) {
        if (!m[0]) { re.lastIndex++; continue; }
        frag = frag || document.createDocumentFragment();
        frag.appendChild(document.createTextNode(text.slice(last, m.index)));
        var mark = document.createElement("mark");
        mark.className = "search-hit";
        mark.textContent = m[0];
        frag.appendChild(mark);
        marks.push(mark);
        last = m.index + m[0].length;
      }
      if (frag) {
        frag.appendChild(document.createTextNode(text.slice(last)));
        node.parentNode.replaceChild(frag, node);
      }
    });
    if (!marks.length) return;
    var id = decodeURIComponent(window.location.hash.slice(1)), target = id && document.getElementById(id);
    var first = marks[0];
    if (target) {
      for (var i = 0; i < marks.length; i++) {
        if (target.compareDocumentPosition(marks[i]) & (Node.DOCUMENT_POSITION_FOLLOWING | Node.DOCUMENT_POSITION_CONTAINED_BY)) {
          first = marks[i];
          break;
        }
      }
    }
    first.classList.add("search-hit-first");
    /* every block laid out before the jump (see style.css: content-visibility) */
    html.classList.add("full-layout");
    function reveal() { first.scrollIntoView({ block: "center" }); }
    /* after the browser's own jump to the #target */
    if (document.readyState === "complete") reveal();
    else window.addEventListener("load", function () { setTimeout(reveal, 0); });
  }

  function isEditable(el) {
    if (!el) return false;
    var tag = el.tagName;
    return el.isContentEditable || tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
  }

  function init() {
    highlightPage();
    var input = document.getElementById("search-input");
    if (!input) return;
    var urgent = function () { load(true).catch(function () {}); };
    input.addEventListener("focus", urgent);
    input.addEventListener("input", urgent);
    if (document.readyState === "complete") prefetch();
    else window.addEventListener("load", prefetch);
    document.addEventListener("keydown", function (e) {
      if (e.key === "/" && !e.ctrlKey && !e.metaKey && !e.altKey && !isEditable(document.activeElement)) {
        e.preventDefault();
        input.focus();
        input.select();
      }
    });
  }

  /* For tests and other scripts: query(q) -> Promise of the results' urls; source: where the
     index came from ("built", "cache": in the worker; "page": no worker). */
  var api = {
    ready: ready,
    saved: saved,
    source: null,
    version: QUERY,
    loadScript: loadScript,   /* shared with search-ui.js */
    load: function () { return load(true); },
    query: function (q) { return ready.then(function () { return window.bookSearchUI.query(q); }); }
  };
  window.bookSearch = api;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
