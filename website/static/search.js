/* Book search: lazy-loaded lunr.js 2.3.9 index, CJK bigram tokeniser, results UI.
 *
 * The tokeniser mirrors bookkit/render/cjk.py exactly (tests/search checks parity in Node);
 * index expansion and query mirror bookkit/render/search.py. Loaded with <script defer>;
 * on first focus of #search-input it inserts <script> tags for data-static + "lunr.min.js"
 * and data-root + "search-index.js" (so it works from file:// and under any sub-path).
 * This file is ASCII only on purpose (no charset surprises).
 */
(function () {
  "use strict";

  /* ---------------------------------------------------------------- tokeniser */

  var RE_LN = /^[\p{L}\p{N}]$/u;
  var RE_M = /^\p{M}$/u;
  var RE_CF = /^\p{Cf}$/u;

  function isCJK(ch) {
    var cp = ch.codePointAt(0);
    if (!((cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7AF) ||
          (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x20000 && cp <= 0x3FFFF))) {
      return false;
    }
    return RE_LN.test(ch);
  }

  /* charmap: object {variant: folded} or undefined; query: bigrams only for CJK runs */
  function tokenize(text, charmap, query) {
    if (!text) return [];
    var s = String(text).normalize("NFKC").toLowerCase();
    var cmap = charmap || {};
    var out = [], word = "", run = [];

    function flushWord() {
      if (word) { out.push(word); word = ""; }
    }
    function flushRun() {
      var n = run.length;
      if (n === 1) {
        out.push(run[0]);
      } else if (n > 1) {
        for (var i = 0; i < n; i++) {
          if (!query) out.push(run[i]);
          if (i + 1 < n) out.push(run[i] + run[i + 1]);
        }
      }
      run = [];
    }

    for (var ch of s) {
      if (RE_LN.test(ch)) {
        if (isCJK(ch)) {
          flushWord();
          run.push(Object.prototype.hasOwnProperty.call(cmap, ch) ? cmap[ch] : ch);
        } else {
          flushRun();
          word += ch;
        }
      } else if (RE_M.test(ch)) {
        if (word) word += ch;
      } else if (RE_CF.test(ch)) {
        continue;
      } else {
        flushWord();
        flushRun();
      }
    }
    flushWord();
    flushRun();
    return out;
  }

  function charmapFromString(s) {
    var cps = Array.from(s || ""), m = {};
    for (var i = 0; i + 1 < cps.length; i += 2) m[cps[i]] = cps[i + 1];
    return m;
  }

  /* Natural log for x >= 1 from +, -, *, / only, so JS and Python agree to the bit
     (mirror of search.py _ln; Math.log and glibc's log may differ in the last place). */
  var LN2 = 0.6931471805599453;
  function ln(x) {
    var k = 0;
    while (x >= 2) { x = x / 2; k += 1; }
    var y = (x - 1) / (x + 1), y2 = y * y, total = 0, term = y;
    for (var n = 0; n < 30; n++) {
      total = total + term / (2 * n + 1);
      term = term * y2;
    }
    return k * LN2 + 2 * total;
  }

  var K1 = 1.2, B = 0.75;

  /* Postings are text (mirror of search.py encode_postings): varints whose digits are the
     printable ASCII characters other than quote, apostrophe and backslash; the first 46 end a
     number, the other 45 carry on. Each posting is 2*gap + (tf > 1), then tf - 2 if tf > 1. */
  var DIGIT = new Int8Array(128).fill(-1);
  (function () {
    var d = 0;
    for (var c = 0x21; c < 0x7F; c++) {
      if (c !== 0x22 && c !== 0x27 && c !== 0x5C) DIGIT[c] = d++;
    }
  })();
  var NF = 46, NC = 45;

  function decodePostings(text) {
    var flat = [], value = 0, scale = 1, pendingTf = false, gap = 0;
    for (var i = 0; i < text.length; i++) {
      var d = DIGIT[text.charCodeAt(i)];
      if (d >= NF) { value += (d - NF) * scale; scale *= NC; continue; }
      var n = value + d * scale;
      value = 0; scale = 1;
      if (pendingTf) { flat.push(gap, n + 2); pendingTf = false; }
      else if (n % 2) { gap = (n - 1) / 2; pendingTf = true; }
      else flat.push(n / 2, 1);
    }
    return flat;
  }

  /* Rebuild lunr's serialised index from the shipped payload (mirror of search.py expand):
     BM25 field scores with lunr's parameters, 3 decimals, same operations in the same order. */
  function expand(payload) {
    var fields = payload.fields.map(function (f) { return f[0]; });
    var terms = payload.terms ? payload.terms.split(" ") : [];
    var ndocs = payload.docs.length, nterms = terms.length;
    var lists = payload.postings.map(function (field) {
      return nterms ? field.split(" ").map(decodePostings) : [];
    });
    var EMPTY = {};   /* lunr only reads a posting's metadata: one shared empty object */
    var postings = terms.map(function () {
      var p = {};
      fields.forEach(function (f) { p[f] = {}; });
      return p;
    });
    var df = new Array(nterms).fill(0);
    lists.forEach(function (field) {
      field.forEach(function (flat, t) { df[t] += flat.length / 2; });
    });
    var idf = df.map(function (d) { return ln(1 + Math.abs((ndocs - d + 0.5) / (d + 0.5))); });
    var vectors = fields.map(function () {
      var v = new Array(ndocs);
      for (var d = 0; d < ndocs; d++) v[d] = [];
      return v;
    });
    fields.forEach(function (field, fi) {
      var lengths = payload.lengths[fi], boost = payload.fields[fi][1], sum = 0;
      var fieldVectors = vectors[fi];
      for (var i = 0; i < lengths.length; i++) sum += lengths[i];
      var avg = ndocs ? sum / ndocs : 0;
      lists[fi].forEach(function (flat, t) {
        var doc = 0, termPostings = postings[t][field], w = idf[t];
        for (var j = 0; j < flat.length; j += 2) {
          doc += flat[j];
          var tf = flat[j + 1];
          var score = w * ((K1 + 1) * tf) / (K1 * (1 - B + B * (lengths[doc] / avg)) + tf);
          score = score * boost;
          score = Math.floor(score * 1000 + 0.5) / 1000;
          fieldVectors[doc].push(t, score);
          termPostings[doc] = EMPTY;
        }
      });
    });
    var fieldVectors = [];
    fields.forEach(function (field, fi) {
      for (var d = 0; d < ndocs; d++) fieldVectors.push([field + "/" + d, vectors[fi][d]]);
    });
    var inverted = terms.map(function (term, i) {
      var posting = { _index: i };
      fields.forEach(function (f) { posting[f] = postings[i][f]; });
      return [term, posting];
    });
    inverted.sort(function (a, b) { return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0; });
    return { version: "2.3.9", fields: fields, fieldVectors: fieldVectors,
             invertedIndex: inverted, pipeline: ["stemmer"] };
  }

  var MAX_RESULTS = 50;

  /* Required terms: query-mode tokens, lunr stop words dropped, deduplicated, lone Latin
     letters dropped when other terms remain (mirror of search.py query_terms). */
  function queryTerms(lunr, q, charmap) {
    var seen = [];
    tokenize(q, charmap, true).forEach(function (t) {
      if (lunr.stopWordFilter(new lunr.Token(t)) === undefined) return;
      if (seen.indexOf(t) < 0) seen.push(t);
    });
    var words = seen.filter(function (t) { return Array.from(t).length > 1 || isCJK(t); });
    return words.length ? words : seen;
  }

  /* The query's last term, if it may be a word still being typed: Latin letters or digits,
     at least three, and no space after it (mirror of search.py prefix_term). */
  function prefixTerm(q, terms) {
    var last = terms[terms.length - 1];
    if (!last || /\s$/.test(q) || Array.from(last).length < 3) return null;
    return Array.from(last).some(isCJK) ? null : last;
  }

  function ranked(results) {
    var scored = results.map(function (r) { return { ref: parseInt(r.ref, 10), score: r.score }; });
    function r6(x) { return Math.round(x * 1e6) / 1e6; }
    scored.sort(function (a, b) { return (r6(b.score) - r6(a.score)) || (a.ref - b.ref); });
    return scored;
  }

  /* Run a query on a loaded index; returns [{ref: doc number, score}], best first. Every term
     is required. Documents that match the words as typed come first; then, while the last
     word may be unfinished, documents where it is the start of a word ("bandw"). */
  function runQuery(lunr, idx, q, charmap) {
    var terms = queryTerms(lunr, q, charmap);
    if (!terms.length) return [];
    var required = lunr.Query.presence.REQUIRED;
    var results = ranked(idx.query(function (b) {
      terms.forEach(function (t) { b.term(t, { presence: required }); });
    }));
    var prefix = prefixTerm(q, terms);
    if (prefix && results.length < MAX_RESULTS) {
      var seen = {};
      results.forEach(function (r) { seen[r.ref] = true; });
      ranked(idx.query(function (b) {
        terms.slice(0, -1).forEach(function (t) { b.term(t, { presence: required }); });
        b.term(prefix, { presence: required, usePipeline: false,
                         wildcard: lunr.Query.wildcard.TRAILING });
      })).forEach(function (r) { if (!seen[r.ref]) results.push(r); });
    }
    return results.slice(0, MAX_RESULTS);
  }

  var api = { tokenize: tokenize, isCJK: isCJK, expand: expand, ln: ln, charmapFromString: charmapFromString,
              decodePostings: decodePostings,
              queryTerms: queryTerms, runQuery: runQuery, prefixTerm: prefixTerm };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  if (typeof document === "undefined" || typeof window === "undefined") return;

  /* ---------------------------------------------------------------- browser */

  var html = document.documentElement;
  var ROOT = html.getAttribute("data-root") || "./";
  var STATIC = html.getAttribute("data-static") || ROOT + "static/";
  var input, status, list;
  var state = { idx: null, payload: null, charmap: null, active: -1, items: [], timer: 0 };
  var loading = null, resolveReady, rejectReady;
  var ready = new Promise(function (res, rej) { resolveReady = res; rejectReady = rej; });
  ready.catch(function () {});

  function label(name, fallback) {
    return (input && input.getAttribute("data-label-" + name)) || fallback;
  }

  function loadScript(src) {
    return new Promise(function (res, rej) {
      var el = document.createElement("script");
      el.src = src;
      el.charset = "utf-8";
      el.async = false;
      el.onload = function () { res(); };
      el.onerror = function () { rej(new Error("cannot load " + src)); };
      document.head.appendChild(el);
    });
  }

  function load() {
    if (loading) return loading;
    if (status && !state.idx) status.textContent = label("loading", "Loading\u2026");
    var lunrReady = window.lunr ? Promise.resolve() : loadScript(STATIC + "lunr.min.js");
    var indexReady = window.bookSearchIndex ? Promise.resolve() : loadScript(ROOT + "search-index.js");
    loading = Promise.all([lunrReady, indexReady]).then(function () {
      var payload = window.bookSearchIndex;
      state.payload = payload;
      state.charmap = charmapFromString(payload.charmap);
      state.idx = window.lunr.Index.load(expand(payload));
      if (status) status.textContent = "";
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

  function query(q) {
    if (!state.idx) return [];
    return runQuery(window.lunr, state.idx, q, state.charmap).map(function (r) {
      return state.payload.docs[r.ref][0];
    });
  }

  /* ---- snippets with highlighted terms (built as DOM nodes, never as HTML) */

  /* Memoised per character and per word: 50 snippets repeat the same few hundred of each. */
  var foldMemo = new Map();
  function foldChar(ch) {
    var hit = foldMemo.get(ch);
    if (hit === undefined) {
      var n = ch.normalize("NFKC").toLowerCase();
      hit = Object.prototype.hasOwnProperty.call(state.charmap, n) ? state.charmap[n] : n;
      foldMemo.set(ch, hit);
    }
    return hit;
  }
  var wordMemo = { key: null, hits: new Map() };

  function marksFor(text, terms, prefix) {
    var cps = Array.from(text), n = cps.length, mark = new Uint8Array(n);
    var cjkTerms = [], latin = {};
    terms.forEach(function (t) {
      var a = Array.from(t);
      if (a.every(isCJK)) cjkTerms.push(a);
      else latin[window.lunr.stemmer(new window.lunr.Token(t)).toString()] = true;
    });
    var folded = cps.map(foldChar);
    cjkTerms.forEach(function (a) {
      for (var i = 0; i + a.length <= n; i++) {
        var ok = true;
        for (var k = 0; k < a.length && ok; k++) ok = folded[i + k] === a[k];
        if (ok) for (k = 0; k < a.length; k++) mark[i + k] = 1;
      }
    });
    if (Object.keys(latin).length || prefix) {
      var termsKey = Object.keys(latin).sort().join(" ") + "|" + (prefix || "");
      if (wordMemo.key !== termsKey) wordMemo = { key: termsKey, hits: new Map() };
      var i = 0;
      while (i < n) {
        if (RE_LN.test(cps[i]) && !isCJK(cps[i])) {
          var j = i;
          while (j < n && (RE_LN.test(cps[j]) || RE_M.test(cps[j])) && !isCJK(cps[j])) j++;
          var word = cps.slice(i, j).join("");
          var hit = wordMemo.hits.get(word);
          if (hit === undefined) {
            hit = tokenize(word).some(function (w) {
              return latin[window.lunr.stemmer(new window.lunr.Token(w)).toString()] ||
                (prefix !== null && prefix !== undefined && w.lastIndexOf(prefix, 0) === 0);
            });
            wordMemo.hits.set(word, hit);
          }
          if (hit) for (var k2 = i; k2 < j; k2++) mark[k2] = 1;
          i = j;
        } else {
          i++;
        }
      }
    }
    return { cps: cps, mark: mark };
  }

  function appendMarked(parent, cps, mark, start, end) {
    var i = start;
    while (i < end) {
      var j = i;
      while (j < end && mark[j] === mark[i]) j++;
      var chunk = cps.slice(i, j).join("");
      if (mark[i]) {
        var m = document.createElement("mark");
        m.textContent = chunk;
        parent.appendChild(m);
      } else {
        parent.appendChild(document.createTextNode(chunk));
      }
      i = j;
    }
  }

  function snippet(parent, text, terms, prefix) {
    var r = marksFor(text, terms, prefix), n = r.cps.length, first = r.mark.indexOf(1);
    var start = first < 0 ? 0 : Math.max(0, first - 30), end = Math.min(n, start + 160);
    if (start > 0) parent.appendChild(document.createTextNode("\u2026"));
    appendMarked(parent, r.cps, r.mark, start, end);
    if (end < n) parent.appendChild(document.createTextNode("\u2026"));
  }

  /* ---- rendering */

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
  }

  function update() {
    clearTimeout(state.timer);
    state.timer = 0;
    var q = input.value;
    clear();
    if (!q.trim()) {
      status.textContent = "";
      close();
      return;
    }
    if (!state.idx) { load(); return; }
    var results = runQuery(window.lunr, state.idx, q, state.charmap);
    var terms = queryTerms(window.lunr, q, state.charmap);
    var prefix = prefixTerm(q, terms);
    var chapters = state.payload.chapters;
    results.forEach(function (r, i) {
      var doc = state.payload.docs[r.ref];
      var li = document.createElement("li");
      li.id = "search-result-" + i;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      var a = document.createElement("a");
      a.href = ROOT + doc[0];
      a.tabIndex = -1;
      var title = document.createElement("span");
      title.className = "search-title";
      var chapter = chapters[doc[1]];
      if (chapter !== doc[2]) {
        var c = document.createElement("span");
        c.className = "search-chapter";
        c.textContent = chapter;
        title.appendChild(c);
      }
      var s = document.createElement("span");
      s.className = "search-section";
      appendMarked(s, Array.from(doc[2]), marksFor(doc[2], terms, prefix).mark, 0, Array.from(doc[2]).length);
      title.appendChild(s);
      var p = document.createElement("span");
      p.className = "search-snippet";
      snippet(p, doc[3], terms, prefix);
      a.appendChild(title);
      a.appendChild(p);
      li.appendChild(a);
      li.addEventListener("mousemove", function () { if (state.active !== i) setActive(i); });
      list.appendChild(li);
      state.items.push(li);
    });
    status.textContent = results.length
      ? label("count", "{n} results").replace("{n}", String(results.length))
      : label("none", "No results");
    if (results.length) open(); else close();
  }

  function schedule() {
    clearTimeout(state.timer);
    state.timer = setTimeout(update, 60);
  }

  function go(i) {
    var li = state.items[i];
    if (!li) return;
    window.location.href = li.querySelector("a").href;
  }

  function onKey(e) {
    var n = state.items.length;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      if (state.timer) update();
      n = state.items.length;
      if (!n) return;
      e.preventDefault();
      open();
      var d = e.key === "ArrowDown" ? 1 : -1;
      setActive(state.active < 0 ? (d > 0 ? 0 : n - 1) : (state.active + d + n) % n);
    } else if (e.key === "Enter") {
      if (state.timer) update();
      if (!state.items.length) return;
      e.preventDefault();
      go(state.active < 0 ? 0 : state.active);
    } else if (e.key === "Escape") {
      e.preventDefault();
      if (!list.hidden) {
        close();
      } else {
        input.value = "";
        status.textContent = "";
        clear();
        input.blur();
      }
    }
  }

  function isEditable(el) {
    if (!el) return false;
    var tag = el.tagName;
    return el.isContentEditable || tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
  }

  function init() {
    input = document.getElementById("search-input");
    status = document.getElementById("search-status");
    list = document.getElementById("search-results");
    if (!input || !list || !status) return;
    input.addEventListener("focus", function () { load(); open(); });
    input.addEventListener("input", function () { load(); schedule(); });
    input.addEventListener("keydown", onKey);
    document.addEventListener("keydown", function (e) {
      if (e.key === "/" && !e.ctrlKey && !e.metaKey && !e.altKey && !isEditable(document.activeElement)) {
        e.preventDefault();
        input.focus();
        input.select();
      }
    });
    document.addEventListener("click", function (e) {
      var box = input.closest(".search") || input.parentNode;
      if (!box.contains(e.target)) close();
    });
  }

  api.ready = ready;
  api.load = load;
  api.query = query;
  window.bookSearch = api;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
