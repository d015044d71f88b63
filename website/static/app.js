// Reader interactions: theme toggle, language switcher keeping the section, keyboard navigation,
// copy buttons, mobile menu. No framework; the page works without this file.
(function () {
  "use strict";
  var doc = document.documentElement;
  var toggle = document.querySelector(".theme-toggle");
  if (toggle) toggle.addEventListener("click", function () {
    var next = doc.getAttribute("data-theme") === "dark" ? "light" : "dark";
    doc.setAttribute("data-theme", next);
    try { localStorage.setItem("theme", next); } catch (e) { /* private mode: not persisted */ }
  });

  // The section the reader is in: the last heading above the top of the viewport.
  function currentSection() {
    if (location.hash) return location.hash;
    var heads = document.querySelectorAll("main h2[id], main h3[id]"), id = "";
    for (var i = 0; i < heads.length; i++) {
      if (heads[i].getBoundingClientRect().top < 120) id = heads[i].id; else break;
    }
    return id ? "#" + id : "";
  }
  document.querySelectorAll(".langs a.lang").forEach(function (a) {
    a.addEventListener("click", function () {
      a.href = a.href.split("#")[0] + currentSection();
    });
  });

  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    var rel = e.key === "ArrowLeft" ? "prev" : e.key === "ArrowRight" ? "next" : "";
    var link = rel && document.querySelector('a[rel="' + rel + '"]');
    if (link) { e.preventDefault(); location.href = link.href; }
  });

  document.querySelectorAll("button.copy").forEach(function (btn) {
    btn.addEventListener("click", function () {
      var code = btn.parentNode.querySelector("code");
      var label = btn.textContent;
      navigator.clipboard.writeText(code.textContent).then(function () {
        btn.textContent = "✓";
        setTimeout(function () { btn.textContent = label; }, 1200);
      });
    });
  });

  var menu = document.querySelector(".menu-toggle"), side = document.getElementById("sidebar");
  if (menu && side) menu.addEventListener("click", function () {
    var open = side.classList.toggle("open");
    menu.setAttribute("aria-expanded", open ? "true" : "false");
  });

  // Figures follow the theme. Their SVGs draw text, axes, grid and background in greys that
  // mix the page's --fig-ink and --fig-paper (bookkit/resolve/figures.py, themed_svg), which
  // reach an SVG only inline: so each figure's <img> is swapped for its SVG when it comes near
  // the viewport (the file is the one the <img> loads, from the browser's cache). Without
  // JavaScript the <img> stays and shows the figure as drawn, on its light card.
  function inlineFigure(img) {
    fetch(img.currentSrc || img.src).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.text();
    }).then(function (text) {
      var svg = new DOMParser().parseFromString(text, "image/svg+xml").documentElement;
      if (!svg || svg.nodeName !== "svg" || !svg.classList.contains("bk-fig")) return;
      svg = document.importNode(svg, true);
      svg.setAttribute("width", img.getAttribute("width"));
      svg.setAttribute("height", img.getAttribute("height"));
      svg.setAttribute("role", "img");
      svg.setAttribute("aria-label", img.alt);
      img.replaceWith(svg);
    }).catch(function () { /* keep the image */ });
  }
  var figures = document.querySelectorAll("figure > img[src$='.svg']");
  if (figures.length && "IntersectionObserver" in window && window.fetch) {
    var near = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting) { near.unobserve(e.target); inlineFigure(e.target); }
      });
    }, { rootMargin: "600px 0px" });
    figures.forEach(function (img) { near.observe(img); });
  }
})();
