/* Book search engine (loaded by search.js with lunr.min.js, the pinned lunr 2.3.9): lunr's
 * Builder indexes the shipped section text of data-root + "search-index.js" in idle slices,
 * with this file's CJK tokeniser and lunr's stop-word filter and stemmer (the pipeline
 * search.py gives lunr.py); lunr's Index ranks; then the results UI. The tokeniser, query
 * rules and glossary rewriting mirror bookkit/render/cjk.py and search.py, whose docstrings
 * explain; tests/search checks parity. ASCII only on purpose. */
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

  /* A character's class, memoised: "C" CJK, "W" other letter/number, "M" mark, "" format
     (dropped), " " separator. */
  var CLASS = new Map();
  function classOf(ch) {
    var k = CLASS.get(ch);
    if (k === undefined) {
      k = RE_LN.test(ch) ? (isCJK(ch) ? "C" : "W") : RE_M.test(ch) ? "M" : RE_CF.test(ch) ? "" : " ";
      CLASS.set(ch, k);
    }
    return k;
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
      var kind = classOf(ch);
      if (kind === "C") {
        flushWord();
        run.push(Object.prototype.hasOwnProperty.call(cmap, ch) ? cmap[ch] : ch);
      } else if (kind === "W") {
        flushRun();
        word += ch;
      } else if (kind === "M") {
        if (word) word += ch;
      } else if (kind !== "") {
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

  /* ---------------------------------------------------------------- lunr */

  /* lunr.js: window.lunr in the browser (search.js loads lunr.min.js first), use(require("lunr"))
     in Node. */
  var L = null;
  function use(lunr) { L = lunr; }
  function lib() { return L || (L = window.lunr); }

  var stemMemo = new Map();
  function stem(w) {
    var hit = stemMemo.get(w);
    if (hit === undefined) {
      hit = lib().stemmer(new L.Token(w)).toString();
      stemMemo.set(w, hit);
    }
    return hit;
  }
  function isStopWord(w) { return lib().stopWordFilter(new L.Token(w)) === undefined; }

  /* lunr's Builder set up as search.py's compact_with_lunr_builder sets up lunr.py's: fields and
     boosts from the payload, refs are document numbers, the CJK tokeniser (Traditional folded to
     Simplified, bigrams), then lunr's stop-word filter and stemmer. add(row) takes one shipped
     document, so the build can run in idle slices; the Latin words are counted as they pass, for
     "did you mean". */
  function Indexer(payload, charmap) {
    var lunr = lib(), b = new lunr.Builder(), words = new Map(), seen = new Map();
    b.ref("id");
    payload.fields.forEach(function (f) { b.field(f[0], { boost: f[1] }); });
    b.pipeline.add(lunr.stopWordFilter, lunr.stemmer);
    b.searchPipeline.add(lunr.stemmer);
    b.tokenizer = function (text) {
      return tokenize(text, charmap).map(function (t) {
        var word = seen.get(t);
        if (word === undefined) {
          word = classOf(String.fromCodePoint(t.codePointAt(0))) !== "C" && !isStopWord(t);
          seen.set(t, word);
        }
        if (word) words.set(t, (words.get(t) || 0) + 1);
        return new lunr.Token(t, {});
      });
    };
    this.builder = b;
    this.words = words;
    this.payload = payload;
    this.n = 0;
  }

  Indexer.prototype.add = function (row) {
    var chapter = this.payload.chapters[row[1]];
    this.builder.add({ id: String(this.n++), s: row[2], c: chapter === row[2] ? "" : chapter, b: row[3] });
  };

  Indexer.prototype.build = function () { return this.builder.build(); };

  /* The shipped file is in columns (page runs, anchors, titles, texts: each column compresses
     better beside its like); the Indexer and the results read rows, [url, chapter number,
     section title, text], made once here (docs_of in search.py). */
  function docsOf(payload) {
    if (payload.docs) return payload.docs;
    var docs = [], i = 0;
    payload.runs.forEach(function (run) {
      for (var k = 0; k < run[2]; k++, i++) {
        var anchor = payload.anchors[i];
        docs.push([payload.pages[run[0]] + (anchor ? "#" + anchor : ""), run[1],
                   payload.titles[i], payload.texts[i]]);
      }
    });
    payload.docs = docs;
    return docs;
  }

  function buildIndex(payload, charmap) {
    var b = new Indexer(payload, charmap);
    docsOf(payload).forEach(function (row) { b.add(row); });
    return b.build();
  }

  var MAX_RESULTS = 50;

  /* Required terms: query-mode tokens, lunr's stop words dropped, deduplicated, lone Latin
     letters dropped when other terms remain (mirror of search.py query_terms). */
  function queryTerms(q, charmap) {
    var seen = [];
    tokenize(q, charmap, true).forEach(function (t) {
      if (isStopWord(t)) return;
      if (seen.indexOf(t) < 0) seen.push(t);
    });
    var words = seen.filter(function (t) { return Array.from(t).length > 1 || isCJK(t); });
    return words.length ? words : seen;
  }

  /* mirror of search.py prefix_term */
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

  /* Every term required (stemmed by the index's search pipeline): the words as typed first,
     then, if the last word may be unfinished, documents where it starts a word (mirror of
     search.py _run). */
  function runCore(idx, q, charmap) {
    var terms = queryTerms(q, charmap);
    if (!terms.length) return [];
    var required = L.Query.presence.REQUIRED;
    var results = ranked(idx.query(function (b) {
      terms.forEach(function (t) { b.term(t, { presence: required }); });
    }));
    var prefix = prefixTerm(q, terms);
    if (prefix && results.length < MAX_RESULTS) {
      var seen = {};
      results.forEach(function (r) { seen[r.ref] = true; });
      ranked(idx.query(function (b) {
        terms.slice(0, -1).forEach(function (t) { b.term(t, { presence: required }); });
        b.term(prefix, { presence: required, usePipeline: false, wildcard: L.Query.wildcard.TRAILING });
      })).forEach(function (r) { if (!seen[r.ref]) results.push(r); });
    }
    return results.slice(0, MAX_RESULTS);
  }

  /* Glossary synonyms (mirror of search.py Synonyms, _form_at, rewrite_query) */
  function synonymsFrom(payload) {
    return { pairs: payload.syn || [], keep: payload.keep || [] };
  }

  function isWordChar(ch) { var k = classOf(ch); return k === "W" || k === "M"; }

  function formAt(folded, i, form) {
    var star = form.charAt(form.length - 1) === "*", body = star ? form.slice(0, -1) : form;
    if (!folded.startsWith(body, i)) return 0;
    if (!isWordChar(String.fromCodePoint(body.codePointAt(0)))) return body.length;
    if (i > 0 && isWordChar(lastChar(folded.slice(0, i)))) return 0;
    var end = i + body.length;
    if (star) {
      while (end < folded.length && isWordChar(String.fromCodePoint(folded.codePointAt(end)))) {
        end += String.fromCodePoint(folded.codePointAt(end)).length;
      }
    } else if (end < folded.length && isWordChar(String.fromCodePoint(folded.codePointAt(end)))) {
      return 0;
    }
    return end - i;
  }

  function lastChar(s) { var a = Array.from(s); return a[a.length - 1]; }

  function rewriteQuery(q, charmap, syn) {
    if (!syn || !syn.pairs.length) return null;
    var folded = "";
    for (var ch of String(q).normalize("NFKC").toLowerCase()) {
      folded += Object.prototype.hasOwnProperty.call(charmap, ch) ? charmap[ch] : ch;
    }
    var out = "", i = 0, changed = false;
    while (i < folded.length) {
      var kept = null;
      syn.keep.forEach(function (w) {
        if (folded.startsWith(w, i) && (kept === null || w.length > kept.length)) kept = w;
      });
      if (kept) { out += kept; i += kept.length; continue; }
      var best = null, bestLen = 0;
      syn.pairs.forEach(function (p) {
        var n = formAt(folded, i, p[0]);
        if (n > bestLen) { best = p[1]; bestLen = n; }
      });
      if (best !== null) { out += best; i += bestLen; changed = true; continue; }
      var c = String.fromCodePoint(folded.codePointAt(i));
      out += c;
      i += c.length;
    }
    return changed ? out : null;
  }

  /* [{ref, score}], best first (mirror of search.py search) */
  function runQuery(idx, q, charmap, syn) {
    var results = runCore(idx, q, charmap);
    var rewritten = rewriteQuery(q, charmap, syn);
    if (rewritten !== null && results.length < MAX_RESULTS) {
      var seen = {};
      results.forEach(function (r) { seen[r.ref] = true; });
      runCore(idx, rewritten, charmap).forEach(function (r) {
        if (!seen[r.ref]) results.push(r);
      });
    }
    return results.slice(0, MAX_RESULTS);
  }

  /* ---- "did you mean": the closest indexed word to a query word the index lacks */

  function editDistance(a, b, limit) {
    var n = a.length, m = b.length;
    if (Math.abs(n - m) > limit) return limit + 1;
    var prev = [], cur = [], i, j;
    for (j = 0; j <= m; j++) prev[j] = j;
    for (i = 1; i <= n; i++) {
      cur = [i];
      var rowMin = i;
      for (j = 1; j <= m; j++) {
        var v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
        cur[j] = v;
        if (v < rowMin) rowMin = v;
      }
      if (rowMin > limit) return limit + 1;
      prev = cur;
    }
    return prev[m];
  }

  /* A Latin query word whose stem is not indexed -> the nearest indexed word (at most 1 edit
     up to 4 letters, else 2; ties: more frequent, then code point order); null if none. */
  function suggest(idx, q, charmap, words) {
    var changed = false;
    var out = q.split(/(\s+)/).map(function (piece) {
      var toks = tokenize(piece, charmap, true);
      if (toks.length !== 1 || isCJK(toks[0]) || /^[0-9]+$/.test(toks[0])) return piece;
      var w = toks[0];
      if (isStopWord(w) || Object.prototype.hasOwnProperty.call(idx.invertedIndex, stem(w))) return piece;
      var limit = w.length <= 4 ? 1 : 2, best = null, bestD = 0, bestN = 0;
      words.forEach(function (count, cand) {
        var d = editDistance(w, cand, limit);
        if (d > limit) return;
        if (best === null || d < bestD || (d === bestD && (count > bestN || (count === bestN && cand < best)))) {
          best = cand; bestD = d; bestN = count;
        }
      });
      if (best === null) return piece;
      changed = true;
      return best;
    });
    return changed ? out.join("") : null;
  }

  var api = { use: use, tokenize: tokenize, isCJK: isCJK, charmapFromString: charmapFromString,
              Indexer: Indexer, buildIndex: buildIndex, queryTerms: queryTerms, runQuery: runQuery,
              prefixTerm: prefixTerm, rewriteQuery: rewriteQuery, synonymsFrom: synonymsFrom,
              editDistance: editDistance, suggest: suggest };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  if (typeof document === "undefined" || typeof window === "undefined") return;

  /* ---------------------------------------------------------------- browser */

  var html = document.documentElement;
  var ROOT = html.getAttribute("data-root") || "./";
  var STATIC = html.getAttribute("data-static") || ROOT + "static/";
  var input, status, list;
  var state = { idx: null, payload: null, charmap: null, syn: null, words: null, urgent: false,
                active: -1, items: [], timer: 0 };
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

  /* Run `step(deadline)` when the browser is idle (a stand-in deadline where there is no
     requestIdleCallback: Safari). */
  function whenIdle(step) {
    if (window.requestIdleCallback) return window.requestIdleCallback(step, { timeout: 2000 });
    return setTimeout(function () {
      var end = Date.now() + 8;
      step({ timeRemaining: function () { return Math.max(0, end - Date.now()); } });
    }, 1);
  }

  /* Build the index a few documents at a time while the browser is idle; `hurry` (focus,
     typing) finishes it at once. */
  var building = null;
  function build(payload) {
    var charmap = charmapFromString(payload.charmap);
    var b = new Indexer(payload, charmap), docs = docsOf(payload), i = 0;
    return new Promise(function (res) {
      function step(deadline) {
        while (i < docs.length && (!deadline || deadline.timeRemaining() > 1)) b.add(docs[i++]);
        if (i < docs.length) { whenIdle(step); return; }
        building = null;
        res({ idx: b.build(), charmap: charmap, words: b.words });
      }
      building = step;
      if (state.urgent) step(null); else whenIdle(step);
    });
  }

  function hurry() {
    state.urgent = true;
    if (building) building(null);
  }

  /* Fetch and build the index; `urgent` when the reader is waiting for it (focus, typing),
     not when it is prefetched at idle time. */
  function load(urgent) {
    if (urgent !== false) hurry();
    if (loading) return loading;
    if (status && !state.idx && state.urgent) status.textContent = label("loading", "Loading\u2026");
    /* search.js fetches lunr.min.js, this file and the index together (scripts.ready); alone,
       this file fetches the two others */
    var loader = window.bookSearch, scripts = loader && loader.scripts ? loader.scripts : Promise.all([
      window.lunr ? null : loadScript(STATIC + "lunr.min.js"),
      window.bookSearchIndex ? null : loadScript(ROOT + "search-index.js")]);
    loading = scripts.then(function () {
      state.payload = window.bookSearchIndex;
      return build(state.payload);
    }).then(function (built) {
      state.charmap = built.charmap;
      state.words = built.words;
      state.syn = synonymsFrom(state.payload);
      state.idx = built.idx;
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

  function query(q) {
    if (!state.idx) return [];
    return runQuery(state.idx, q, state.charmap, state.syn).map(function (r) {
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
      else latin[stem(t)] = true;
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
              return latin[stem(w)] ||
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

  /* About 160 characters around the first highlight, cut between words: a Latin word is never
     cut in the middle (CJK text can be cut anywhere). */
  function snippet(parent, text, terms, prefix) {
    var r = marksFor(text, terms, prefix), cps = r.cps, n = cps.length, first = r.mark.indexOf(1);
    var start = first < 0 ? 0 : Math.max(0, first - 30), end = Math.min(n, start + 160), k;
    for (k = 0; start > 0 && k < 25 && isWordChar(cps[start - 1]) && isWordChar(cps[start]); k++) start--;
    while (start > 0 && isWordChar(cps[start - 1]) && isWordChar(cps[start])) start++;   /* a very long word */
    for (k = 0; end < n && k < 25 && isWordChar(cps[end - 1]) && isWordChar(cps[end]); k++) end++;
    while (end < n && end > start && isWordChar(cps[end - 1]) && isWordChar(cps[end])) end--;
    while (start < end && /\s/.test(cps[start])) start++;
    while (end > start && /\s/.test(cps[end - 1])) end--;
    if (start > 0) parent.appendChild(document.createTextNode("\u2026"));
    appendMarked(parent, cps, r.mark, start, end);
    if (end < n) parent.appendChild(document.createTextNode("\u2026"));
  }

  /* The words highlighted in a document, as written there (for the page it opens: ?h=). */
  function foundWords(doc, terms, prefix) {
    var out = [];
    [doc[2], doc[3]].forEach(function (text) {
      var r = marksFor(text, terms, prefix), i = 0, n = r.cps.length;
      while (i < n && out.length < 8) {
        if (!r.mark[i]) { i++; continue; }
        var j = i;
        while (j < n && r.mark[j]) j++;
        var w = r.cps.slice(i, j).join("").trim();
        if (w && w.length <= 40 && out.indexOf(w) < 0) out.push(w);
        i = j;
      }
    });
    return out;
  }

  /* url + ?h=word&h=word (before the #fragment) */
  function withHighlights(url, words) {
    if (!words.length) return url;
    var hash = url.indexOf("#"), base = hash < 0 ? url : url.slice(0, hash);
    var frag = hash < 0 ? "" : url.slice(hash);
    return base + (base.indexOf("?") < 0 ? "?" : "&") +
      words.map(function (w) { return "h=" + encodeURIComponent(w); }).join("&") + frag;
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
    var t0 = Date.now();
    render();
    state.slow = Date.now() - t0 > 30;
  }

  function render() {
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
    var results = runQuery(state.idx, q, state.charmap, state.syn);
    var terms = queryTerms(q, state.charmap);
    var prefix = prefixTerm(q, terms);
    var rewritten = rewriteQuery(q, state.charmap, state.syn);
    if (rewritten !== null) {
      queryTerms(rewritten, state.charmap).forEach(function (t) {
        if (terms.indexOf(t) < 0) terms.push(t);
      });
    }
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
      /* the page opened highlights the words found (computed on the way there: cheap enough
         for one document, not for fifty on every key) */
      a.addEventListener("click", function () { a.href = withHighlights(ROOT + doc[0], foundWords(doc, terms, prefix)); });
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
    if (!results.length) offerSuggestion(q);
    if (results.length) open(); else close();
  }

  /* No results: offer the query with each unknown word replaced by the nearest indexed one,
     as a button, when that query finds something. */
  function offerSuggestion(q) {
    var better = suggest(state.idx, q, state.charmap, state.words);
    if (better === null || !runQuery(state.idx, better, state.charmap, state.syn).length) return;
    var text = label("suggest", "Did you mean {q}?").split("{q}");
    status.textContent = label("none", "No results") + " ";
    var wrap = document.createElement("span");
    wrap.className = "search-suggest";
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = better;
    button.addEventListener("click", function (e) {
      e.stopPropagation();   /* the button is gone after update(): not an outside click */
      input.value = better;
      input.focus();
      update();
    });
    wrap.appendChild(document.createTextNode(text[0]));
    wrap.appendChild(button);
    wrap.appendChild(document.createTextNode(text.slice(1).join("")));
    status.appendChild(wrap);
  }

  /* Coalesce keystrokes; wait longer only when a search has been slow (a long result list on
     a slow device), so a built index answers in the next task. */
  function schedule() {
    clearTimeout(state.timer);
    state.timer = setTimeout(update, state.slow ? 60 : 0);
  }

  function go(i) {
    var li = state.items[i];
    if (!li) return;
    li.querySelector("a").click();   /* its click handler adds the words to highlight */
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

  api.ready = ready;
  api.load = load;
  api.query = query;
  window.bookSearchEngine = api;
  init();   /* loaded after DOMContentLoaded, by search.js */
})();
