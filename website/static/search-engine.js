/* Book search engine, without any DOM: run by search-worker.js in a Web Worker (or, where no
 * worker can start, by search-ui.js on the page), and by Node in the parity tests. With the
 * pinned lunr 2.3.9 (lunr.min.js), lunr's Builder indexes the shipped section text of an
 * edition's search-index.js with this file's CJK tokeniser and lunr's stop-word filter and
 * stemmer (the pipeline search.py gives lunr.py); lunr's Index ranks; Engine.view gives the
 * results list as data (titles, snippets with the found words marked). The tokeniser, query
 * rules and glossary rewriting mirror bookkit/lunr/cjk.py and search.py, whose docstrings
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

  /* lunr.js: self.lunr in a worker or a page (lunr.min.js is loaded first), use(require("lunr"))
     in Node. */
  var L = null;
  function use(lunr) { L = lunr; }
  function lib() { return L || (L = self.lunr); }

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

  /* ---- what the results list shows, as plain data (the page draws it as DOM nodes, never as
     HTML; in a worker this runs off the page's main thread) */

  function isWordCp(ch) { return ch !== undefined && isWordChar(ch); }

  /* The characters of `text` and, for each, 1 if it is part of a found term: CJK terms where
     the folded text holds them, Latin words whose stem is a term's (or that start with the
     unfinished last word). Memoised per character and per word: 50 snippets repeat the same
     few hundred of each. */
  function Marker(charmap) {
    this.charmap = charmap;
    this.folds = new Map();
    this.words = { key: null, hits: new Map() };
  }

  Marker.prototype.fold = function (ch) {
    var hit = this.folds.get(ch);
    if (hit === undefined) {
      var n = ch.normalize("NFKC").toLowerCase();
      hit = Object.prototype.hasOwnProperty.call(this.charmap, n) ? this.charmap[n] : n;
      this.folds.set(ch, hit);
    }
    return hit;
  };

  Marker.prototype.marks = function (text, terms, prefix) {
    var self = this, cps = Array.from(text), n = cps.length, mark = new Uint8Array(n);
    var cjkTerms = [], latin = {};
    terms.forEach(function (t) {
      var a = Array.from(t);
      if (a.every(isCJK)) cjkTerms.push(a);
      else latin[stem(t)] = true;
    });
    var folded = cps.map(function (ch) { return self.fold(ch); });
    cjkTerms.forEach(function (a) {
      for (var i = 0; i + a.length <= n; i++) {
        var ok = true;
        for (var k = 0; k < a.length && ok; k++) ok = folded[i + k] === a[k];
        if (ok) for (k = 0; k < a.length; k++) mark[i + k] = 1;
      }
    });
    if (Object.keys(latin).length || prefix) {
      var termsKey = Object.keys(latin).sort().join(" ") + "|" + (prefix || "");
      if (this.words.key !== termsKey) this.words = { key: termsKey, hits: new Map() };
      var i = 0;
      while (i < n) {
        if (RE_LN.test(cps[i]) && !isCJK(cps[i])) {
          var j = i;
          while (j < n && (RE_LN.test(cps[j]) || RE_M.test(cps[j])) && !isCJK(cps[j])) j++;
          var word = cps.slice(i, j).join("");
          var hit = this.words.hits.get(word);
          if (hit === undefined) {
            hit = tokenize(word).some(function (w) {
              return latin[stem(w)] ||
                (prefix !== null && prefix !== undefined && w.lastIndexOf(prefix, 0) === 0);
            });
            this.words.hits.set(word, hit);
          }
          if (hit) for (var k2 = i; k2 < j; k2++) mark[k2] = 1;
          i = j;
        } else {
          i++;
        }
      }
    }
    return { cps: cps, mark: mark };
  };

  /* [[text, marked], ...] for cps[start:end], runs of equal marking joined */
  function segments(cps, mark, start, end, out) {
    var i = start;
    while (i < end) {
      var j = i;
      while (j < end && mark[j] === mark[i]) j++;
      out.push([cps.slice(i, j).join(""), mark[i] ? 1 : 0]);
      i = j;
    }
    return out;
  }

  /* About 160 characters around the first highlight, cut between words: a Latin word is never
     cut in the middle (CJK text can be cut anywhere). */
  Marker.prototype.snippet = function (text, terms, prefix) {
    var r = this.marks(text, terms, prefix), cps = r.cps, n = cps.length, first = r.mark.indexOf(1);
    var start = first < 0 ? 0 : Math.max(0, first - 30), end = Math.min(n, start + 160), k;
    for (k = 0; start > 0 && k < 25 && isWordCp(cps[start - 1]) && isWordCp(cps[start]); k++) start--;
    while (start > 0 && isWordCp(cps[start - 1]) && isWordCp(cps[start])) start++;   /* a very long word */
    for (k = 0; end < n && k < 25 && isWordCp(cps[end - 1]) && isWordCp(cps[end]); k++) end++;
    while (end < n && end > start && isWordCp(cps[end - 1]) && isWordCp(cps[end])) end--;
    while (start < end && /\s/.test(cps[start])) start++;
    while (end > start && /\s/.test(cps[end - 1])) end--;
    var out = start > 0 ? [["\u2026", 0]] : [];
    segments(cps, r.mark, start, end, out);
    if (end < n) out.push(["\u2026", 0]);
    return out;
  };

  /* The words highlighted in a document, as written there (for the page it opens: ?h=). */
  Marker.prototype.found = function (doc, terms, prefix) {
    var self = this, out = [];
    [doc[2], doc[3]].forEach(function (text) {
      var r = self.marks(text, terms, prefix), i = 0, n = r.cps.length;
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
  };

  /* ---- one edition's search, built or loaded from a cache: what the worker (or, where there
     is none, the page) runs */

  function Engine(payload, idx, words) {
    this.payload = payload;
    this.docs = docsOf(payload);
    this.charmap = charmapFromString(payload.charmap);
    this.syn = synonymsFrom(payload);
    this.idx = idx;
    this.words = words;
    this.marker = new Marker(this.charmap);
  }

  /* The index built by lunr's Builder, all at once (a worker has nothing else to do). */
  Engine.build = function (payload) {
    var b = new Indexer(payload, charmapFromString(payload.charmap));
    docsOf(payload).forEach(function (row) { b.add(row); });
    return new Engine(payload, b.build(), b.words);
  };

  /* lunr's own serialisation of the built index and the word counts for "did you mean": loading
     it answers exactly as the index it was saved from (Index.load keeps every vector). */
  Engine.prototype.save = function () {
    return JSON.stringify({ index: this.idx.toJSON(), words: Array.from(this.words) });
  };

  Engine.load = function (payload, saved) {
    var data = JSON.parse(saved);
    return new Engine(payload, lib().Index.load(data.index), new Map(data.words));
  };

  /* the urls of the results (what the parity tests compare with search.py) */
  Engine.prototype.urls = function (q) {
    var docs = this.docs;
    return runQuery(this.idx, q, this.charmap, this.syn).map(function (r) { return docs[r.ref][0]; });
  };

  /* {items: [{url, chapter, section, snippet, words}], suggestion}: section and snippet as
     [[text, marked], ...]; chapter "" when the section is the chapter's opening; suggestion a
     better query when there is no result and it finds something (else null). */
  Engine.prototype.view = function (q) {
    var self = this, results = runQuery(this.idx, q, this.charmap, this.syn);
    var terms = queryTerms(q, this.charmap), prefix = prefixTerm(q, terms);
    var rewritten = rewriteQuery(q, this.charmap, this.syn);
    if (rewritten !== null) {
      queryTerms(rewritten, this.charmap).forEach(function (t) {
        if (terms.indexOf(t) < 0) terms.push(t);
      });
    }
    var chapters = this.payload.chapters;
    var items = results.map(function (r) {
      var doc = self.docs[r.ref], chapter = chapters[doc[1]];
      var title = self.marker.marks(doc[2], terms, prefix);
      return { url: doc[0], chapter: chapter === doc[2] ? "" : chapter,
               section: segments(title.cps, title.mark, 0, title.cps.length, []),
               snippet: self.marker.snippet(doc[3], terms, prefix),
               words: self.marker.found(doc, terms, prefix) };
    });
    var suggestion = null;
    if (!items.length && q.trim()) {
      var better = suggest(this.idx, q, this.charmap, this.words);
      if (better !== null && runQuery(this.idx, better, this.charmap, this.syn).length) suggestion = better;
    }
    return { items: items, suggestion: suggestion };
  };

  var api = { use: use, tokenize: tokenize, isCJK: isCJK, charmapFromString: charmapFromString,
              Indexer: Indexer, buildIndex: buildIndex, queryTerms: queryTerms, runQuery: runQuery,
              prefixTerm: prefixTerm, rewriteQuery: rewriteQuery, synonymsFrom: synonymsFrom,
              editDistance: editDistance, suggest: suggest, docsOf: docsOf, Engine: Engine };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else self.bookSearchCore = api;   /* a page or a worker: both have `self` */
})();
