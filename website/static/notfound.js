/* The site root's 404.html, which hosts (GitHub Pages) serve for a missing path at any depth.
 * Its links start with the site's own path (data-root), written at build time from site_url
 * (book.yml): never taken from the address, so a path like //other.host/en/x cannot point this
 * page, its links or its requests at another origin. When the missing path is inside an
 * edition's folder of the registry (data-editions), the edition's own 404 page (same origin,
 * under the site's path) replaces this one's body: its language, title, links and search, its
 * relative links resolved by a <base> at the edition's folder; the address bar keeps the
 * missing URL. Then the page's scripts start. No document.write, no inline script.
 * ASCII only on purpose. */
(function () {
  "use strict";

  var me = document.currentScript;
  var html = document.documentElement;
  var base = new URL(html.getAttribute("data-root") || "/", location.href);
  var editions = (me.getAttribute("data-editions") || "").split(" ").filter(Boolean);

  function sameOrigin(url) { return url.origin === location.origin; }

  /* the edition folder the missing path is in, or "" (the root edition) */
  function editionOf(path) {
    if (path.indexOf(base.pathname) !== 0) return "";   /* outside the site: the root edition */
    var first = path.slice(base.pathname.length).split("/")[0];
    try { first = decodeURIComponent(first); } catch (e) { return ""; }
    return editions.indexOf(first) >= 0 ? first : "";
  }

  /* scripts by URL, run in order (the edition page's own, or this page's data-scripts) */
  function start(srcs) {
    srcs.forEach(function (src) {
      var url = new URL(src, document.baseURI);
      if (!sameOrigin(url)) return;
      var el = document.createElement("script");
      el.src = url.href;
      el.async = false;
      document.body.appendChild(el);
    });
  }

  var own = (me.getAttribute("data-scripts") || "").split(" ").filter(Boolean);
  var edition = sameOrigin(base) ? editionOf(location.pathname) : "";
  if (!edition) { start(own); return; }

  var target = new URL(edition + "/404.html", base);
  if (!sameOrigin(target)) { start(own); return; }
  fetch(target.href, { credentials: "same-origin", redirect: "error" }).then(function (r) {
    if (!r.ok) throw new Error("HTTP " + r.status);
    return r.text();
  }).then(function (text) {
    var doc = new DOMParser().parseFromString(text, "text/html");
    var srcs = [].map.call(doc.querySelectorAll("body script[src]"), function (s) { return s.getAttribute("src"); });
    [].forEach.call(doc.querySelectorAll("script"), function (s) { s.remove(); });
    /* the edition page's links are relative to its folder; in-page ones (#content) stay here */
    [].forEach.call(doc.querySelectorAll('a[href^="#"]'), function (a) {
      a.setAttribute("href", location.pathname + location.search + a.getAttribute("href"));
    });
    var b = document.createElement("base");
    b.href = new URL(edition + "/", base).href;
    document.head.insertBefore(b, document.head.firstChild);
    ["lang", "data-root", "data-static"].forEach(function (name) {
      var v = doc.documentElement.getAttribute(name);
      if (v !== null) html.setAttribute(name, v);
    });
    document.title = doc.title;
    document.body.replaceWith(document.importNode(doc.body, true));
    start(srcs);
  }).catch(function () { start(own); });
})();
