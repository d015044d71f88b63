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
})();
