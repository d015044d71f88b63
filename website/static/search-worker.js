/* The book's search in a Web Worker: the index is built (or loaded) here, off the page's main
 * thread, and kept for the rest of the visit and later ones in IndexedDB, keyed by the SHA-256
 * of the shipped text (a new build of the book ships new text: the old entry is replaced). The
 * page sends queries and draws what comes back (search-ui.js). ASCII only on purpose.
 *
 * Messages in:  {type: "init", index: absolute URL of the edition's search-index.js}
 *               {type: "query", id, q, urls: true for the urls only (tests, parity)}
 * Messages out: {type: "ready", source: "cache" | "built"}, {type: "saved"} (a built index
 *               is in the cache), {type: "error", message},
 *               {type: "results", id, items, suggestion} or {type: "results", id, urls}. */
"use strict";

/* search-index.js sets window.bookSearchIndex (the same file serves pages that load it
   without a worker) */
self.window = self;
var VERSION = self.location.search;   /* ?v=: lunr, the engine and this file change together */
/* The built site ships this file with lunr and the engine in front of it (one download for
   the worker, `bundle_search_worker` in bookkit/render/site/renderer.py); the source alone
   loads them. */
if (!self.bookSearchCore) importScripts("lunr.min.js" + VERSION, "search-engine.js" + VERSION);

var DB = "book-search", STORE = "index";
var engine = null, pending = [];

function openDb() {
  return new Promise(function (resolve, reject) {
    var req = indexedDB.open(DB, 1);
    req.onupgradeneeded = function () { req.result.createObjectStore(STORE); };
    req.onsuccess = function () { resolve(req.result); };
    req.onerror = function () { reject(req.error); };
  });
}

function idb(mode, fn) {
  return openDb().then(function (db) {
    return new Promise(function (resolve, reject) {
      var tx = db.transaction(STORE, mode), req = fn(tx.objectStore(STORE));
      tx.oncomplete = function () { db.close(); resolve(req.result); };
      tx.onerror = tx.onabort = function () { db.close(); reject(tx.error); };
    });
  });
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join("");
}

/* The SHA-256 of the payload as shipped; null where there is no Web Crypto (a page served over
   plain HTTP from another machine): then nothing is cached. */
function digest(payload) {
  if (!self.crypto || !crypto.subtle) return Promise.resolve(null);
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(payload)))
    .then(hex, function () { return null; });
}

function init(indexUrl) {
  /* only this site's own index: the worker never runs another origin's script */
  if (new URL(indexUrl).origin !== self.location.origin) throw new Error("index from another origin");
  importScripts(indexUrl);
  var payload = self.bookSearchIndex, key = new URL(indexUrl).pathname, core = self.bookSearchCore;
  return digest(payload).then(function (hash) {
    var cached = hash ? idb("readonly", function (s) { return s.get(key); }).catch(function () { return null; })
      : Promise.resolve(null);
    return cached.then(function (entry) {
      if (entry && entry.hash === hash) {
        try {
          return { engine: core.Engine.load(payload, entry.data), source: "cache" };
        } catch (e) { /* a damaged entry: build again */ }
      }
      var built = core.Engine.build(payload);
      if (hash) {
        /* one entry per edition: the new build's replaces the old */
        setTimeout(function () {   /* after "ready" is posted: the reader waits for that */
          idb("readwrite", function (s) { return s.put({ hash: hash, data: built.save() }, key); })
            .then(function () { self.postMessage({ type: "saved" }); },
                  function () { /* private mode, quota: search works, uncached */ });
        }, 0);
      }
      return { engine: built, source: "built" };
    });
  });
}

function answer(msg) {
  if (msg.urls) {
    self.postMessage({ type: "results", id: msg.id, urls: engine.urls(msg.q) });
  } else {
    var view = engine.view(msg.q);
    self.postMessage({ type: "results", id: msg.id, items: view.items, suggestion: view.suggestion });
  }
}

self.onmessage = function (e) {
  var msg = e.data;
  if (msg.type === "init") {
    Promise.resolve().then(function () { return init(msg.index); }).then(function (r) {
      engine = r.engine;
      self.postMessage({ type: "ready", source: r.source });
      pending.splice(0).forEach(answer);
    }, function (err) {
      self.postMessage({ type: "error", message: String(err && err.message || err) });
    });
  } else if (msg.type === "query") {
    if (engine) answer(msg); else pending.push(msg);
  }
};
