// What-if scenarios: the reader swaps in another model or accelerator and the worked example's
// numbers, formulas and provenance change in place. Every value was formatted (and every
// formula rendered) at build time; this file only swaps strings. The data file is a script,
// not JSON fetched, so the page works from file:// too. Without JavaScript the controls stay
// hidden and the page shows the book's values.
(function () {
  "use strict";
  var regions = document.querySelectorAll(".whatif[data-whatif-scenario]");
  if (!regions.length) return;
  var loading = null;

  function load(src, slug) {
    if (!loading) loading = new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = src;
      s.onload = function () {
        var data = window.BOOK_WHATIF && window.BOOK_WHATIF[slug];
        if (data) resolve(data); else reject(new Error("what-if data missing"));
      };
      s.onerror = reject;
      document.head.appendChild(s);
    });
    return loading;
  }

  function slugOf(src) { return src.split("?")[0].replace(/\.whatif\.js$/, "").split("/").pop(); }

  // The bound number's own text (its first text node) and its provenance, wherever the
  // popover keeps it: a `.prov` child or a `data-prov` attribute.
  function numText(el) {
    for (var n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 3) return n;
    var t = document.createTextNode("");
    el.insertBefore(t, el.firstChild);
    return t;
  }
  function getProv(el) {
    if (el.hasAttribute("data-prov")) return el.getAttribute("data-prov");
    var p = el.querySelector(".prov");
    return p ? p.textContent : null;
  }
  function setProv(el, text) {
    if (text === null) return;
    if (el.hasAttribute("data-prov")) el.setAttribute("data-prov", text);
    var p = el.querySelector(".prov");
    if (p) p.textContent = text;
  }

  function setup(region) {
    var name = region.getAttribute("data-whatif-scenario");
    var param = "wi-" + name;
    var controls = region.querySelector(".whatif-controls");
    var selects = Array.prototype.slice.call(region.querySelectorAll("select[data-whatif]"));
    var reset = region.querySelector(".whatif-reset");
    var status = region.querySelector(".whatif-status");
    var book = region.getAttribute("data-whatif-book");
    var src = region.getAttribute("data-whatif-src");
    var slots = {};   // index -> {el, kind, text, prov | html}: the book's values, kept once
    region.querySelectorAll("[data-wi]").forEach(function (el) {
      if (el.closest(".whatif") !== region) return;
      var i = el.getAttribute("data-wi");
      if (el.classList.contains("wi-math")) slots[i] = {el: el, kind: "m", html: el.innerHTML};
      else slots[i] = {el: el, kind: "n", text: numText(el).data, prov: getProv(el)};
    });
    controls.hidden = false;
    // Diagrams drawn per combination (bookkit/render/site/whatif_data.py: "f"): the book's drawing and
    // description are kept to put back; a variant's SVG is fetched when it is picked.
    var figs = {};
    region.querySelectorAll("figure[id]").forEach(function (f) {
      if (f.closest(".whatif") !== region) return;
      var desc = f.querySelector(".fig-desc p");
      figs[f.id] = {el: f, desc: desc, text: desc ? desc.innerHTML : null, shown: null};
    });
    function showFigure(id, src, text) {
      var fig = figs[id];
      if (!fig || fig.shown === src) return;
      var old = fig.el.querySelector("svg.bk-fig, img");
      if (!old) return;
      if (!fig.book) fig.book = old;
      fig.shown = src;
      if (src === null) {
        if (old !== fig.book) old.replaceWith(fig.book);
        if (fig.desc) fig.desc.innerHTML = fig.text;
        return;
      }
      // While a drawing is on its way the figure says so (data-whatif-pending), for scripts
      // and tests that need the region settled; a counter, since the reader may pick again.
      fig.pending = (fig.pending || 0) + 1;
      fig.el.setAttribute("data-whatif-pending", "");
      fetch(src).then(function (r) { if (!r.ok) throw new Error(r.status); return r.text(); })
        .then(function (svgText) {
          if (fig.shown !== src) return;      // the reader picked again meanwhile
          var svg = new DOMParser().parseFromString(svgText, "image/svg+xml").documentElement;
          if (!svg || svg.nodeName !== "svg") return;
          svg = document.importNode(svg, true);
          svg.setAttribute("role", "img");
          svg.setAttribute("aria-label", fig.book.getAttribute("aria-label") ||
                           fig.book.getAttribute("alt") || "");
          if (fig.desc) svg.setAttribute("aria-describedby", fig.desc.id);
          svg.setAttribute("data-whatif-variant", src);
          svg.style.maxWidth = "100%";
          svg.style.height = "auto";
          fig.el.querySelector("svg.bk-fig, img").replaceWith(svg);
          if (fig.desc) fig.desc.textContent = text;
        }).catch(function () { /* keep the drawing shown */ })
        .then(function () {
          fig.pending -= 1;
          if (!fig.pending) fig.el.removeAttribute("data-whatif-pending");
        });
    }

    function current() { return selects.map(function (s) { return s.value; }).join(","); }

    function apply(data, key) {
      var changed = {};
      var v = key === book ? null : data.scenarios[name].variants[key];
      if (v) {
        (v.n || []).forEach(function (e) {
          changed[e[0]] = true;
          var slot = slots[e[0]];
          if (!slot) return;
          numText(slot.el).data = data.strings[e[1]];
          setProv(slot.el, data.strings[e[2]]);
        });
        (v.m || []).forEach(function (e) {
          changed[e[0]] = true;
          if (slots[e[0]]) slots[e[0]].el.innerHTML = data.strings[e[1]];
        });
      }
      var figShown = {};
      ((v && v.f) || []).forEach(function (e) {
        figShown[e[0]] = true;
        showFigure(e[0], data.strings[e[1]], data.strings[e[2]]);
      });
      Object.keys(figs).forEach(function (id) { if (!figShown[id]) showFigure(id, null); });
      Object.keys(slots).forEach(function (i) {
        if (changed[i]) return;
        var slot = slots[i];
        if (slot.kind === "m") { if (slot.el.innerHTML !== slot.html) slot.el.innerHTML = slot.html; }
        else { numText(slot.el).data = slot.text; setProv(slot.el, slot.prov); }
      });
      region.classList.toggle("whatif-changed", key !== book);
      reset.disabled = key === book;
      region.setAttribute("data-whatif-current", key);
    }

    function remember(key) {
      var params = new URLSearchParams(location.search);
      if (key === book) params.delete(param); else params.set(param, key);
      var q = params.toString();
      try {
        history.replaceState(history.state, "", (q ? "?" + q : location.pathname) + location.hash);
      } catch (e) { /* some file:// contexts refuse: the choice is simply not kept */ }
    }

    function choose(key, announce) {
      return load(src, slugOf(src)).then(function (data) {
        if (key !== book && !data.scenarios[name].variants[key]) {
          // An excluded (or unknown) combination: back to the book's values.
          key = book;
          var b = book.split(",");
          selects.forEach(function (s, i) { s.value = b[i]; });
          remember(book);
        }
        apply(data, key);
        if (announce) status.textContent = status.getAttribute("data-done") || "";
        return key;
      });
    }

    // Load the data as soon as the reader reaches for a control, so the change is instant.
    selects.forEach(function (s) {
      ["focus", "pointerdown"].forEach(function (ev) {
        s.addEventListener(ev, function () { load(src, slugOf(src)).catch(function () {}); });
      });
      s.addEventListener("change", function () {
        var key = current();
        remember(key);
        choose(key, true);
      });
    });
    reset.addEventListener("click", function () {
      var values = book.split(",");
      selects.forEach(function (s, i) { s.value = values[i]; });
      remember(book);
      choose(book, true);
    });
    reset.disabled = true;

    var wanted = new URLSearchParams(location.search).get(param);
    if (wanted && wanted !== book) {
      var values = wanted.split(",");
      var ok = values.length === selects.length && selects.every(function (s, i) {
        return Array.prototype.some.call(s.options, function (o) { return o.value === values[i]; });
      });
      if (ok) {
        selects.forEach(function (s, i) { s.value = values[i]; });
        choose(wanted, false);
      }
    }
  }

  regions.forEach(setup);
})();
