// Reader interactions: theme toggle, language switcher keeping the section, keyboard navigation,
// copy buttons, the menu drawer, number provenance and figure zoom. No framework; the page works
// without this file.
(function () {
  "use strict";
  var doc = document.documentElement;
  var strings = document.body ? document.body.dataset : {};
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
  document.querySelectorAll("a.lang").forEach(function (a) {
    a.addEventListener("click", function () {
      a.href = a.href.split("#")[0] + currentSection();
    });
  });

  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.defaultPrevented) return;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    if (document.querySelector("dialog[open]")) return;
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

  // ---- The menu drawer (phones): a backdrop; outside tap and Escape close it.
  var menu = document.querySelector(".menu-toggle"), side = document.getElementById("sidebar");
  var topbar = document.querySelector(".topbar");
  var backdrop = null;
  function setDrawer(open) {
    if (!menu || !side) return;
    if (open) {
      // the header's height depends on how many lines the title wraps to
      doc.style.setProperty("--topbar-h", topbar.getBoundingClientRect().height + "px");
      if (!backdrop) {
        backdrop = document.createElement("div");
        backdrop.className = "drawer-backdrop";
        backdrop.addEventListener("click", function () { setDrawer(false); });
        document.body.appendChild(backdrop);
      }
    }
    side.classList.toggle("open", open);
    if (backdrop) backdrop.hidden = !open;
    menu.setAttribute("aria-expanded", open ? "true" : "false");
  }
  if (menu && side) {
    menu.addEventListener("click", function () { setDrawer(!side.classList.contains("open")); });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && side.classList.contains("open")) {
        setDrawer(false);
        menu.focus();
      }
    });
  }

  // ---- Number provenance: ONE popover for every bound number, in the top layer (never clipped
  // by a table's scrolling wrapper), placed next to the number and clamped to the viewport.
  // Keyboard: the numbers form one roving Tab stop (a chapter has hundreds of them); on a number,
  // arrow keys move to the previous/next number, Home/End to the first/last, Enter or Space
  // toggles, Escape closes. Screen readers get the provenance as the focused number's description.
  var nums = Array.prototype.slice.call(document.querySelectorAll("main .num"));
  var pop = null, anchor = null, pinned = false, pressed = null;
  function ensurePopover() {
    if (pop) return pop;
    pop = document.createElement("div");
    pop.id = "num-popover";
    pop.className = "num-popover";
    pop.setAttribute("role", "tooltip");
    if ("popover" in HTMLElement.prototype) pop.setAttribute("popover", "manual");
    pop.hidden = !pop.hasAttribute("popover");
    pop.appendChild(document.createElement("span")).className = "num-popover-text";
    var hint = pop.appendChild(document.createElement("span"));
    hint.className = "num-popover-hint";
    hint.textContent = strings.numbersHint || "";
    document.body.appendChild(pop);
    return pop;
  }
  function place() {
    if (!pop || !anchor) return;
    var r = anchor.getBoundingClientRect(), vw = doc.clientWidth, vh = window.innerHeight;
    if (r.bottom < 0 || r.top > vh) { closeProv(); return; }   // scrolled out of view
    var w = pop.offsetWidth, h = pop.offsetHeight, gap = 6, margin = 8;
    var left = Math.min(Math.max(margin, r.left), Math.max(margin, vw - w - margin));
    var top = r.bottom + gap;
    if (top + h > vh - margin && r.top - gap - h >= margin) top = r.top - gap - h;   // above
    pop.style.left = left + "px";
    pop.style.top = Math.max(margin, top) + "px";
  }
  function openProv(num, isPinned, withHint) {
    var prov = num.querySelector(".prov");
    if (!prov) return;
    ensurePopover();
    if (anchor && anchor !== num) anchor.removeAttribute("aria-describedby");
    anchor = num;
    pinned = isPinned;
    pop.firstChild.textContent = prov.textContent;
    pop.classList.toggle("with-hint", !!withHint);
    num.setAttribute("aria-describedby", "num-popover");
    num.classList.add("active");
    nums.forEach(function (n) { if (n !== num) n.classList.remove("active"); });
    if (pop.hasAttribute("popover")) { if (!pop.matches(":popover-open")) pop.showPopover(); }
    else pop.hidden = false;
    place();
  }
  function closeProv() {
    if (!pop || !anchor) return;
    if (pop.hasAttribute("popover")) { if (pop.matches(":popover-open")) pop.hidePopover(); }
    else pop.hidden = true;
    anchor.removeAttribute("aria-describedby");
    anchor.classList.remove("active");
    anchor = null;
    pinned = false;
  }
  function focusNum(i) {
    var n = nums[(i + nums.length) % nums.length];
    nums.forEach(function (m) { m.tabIndex = -1; });
    n.tabIndex = 0;
    n.focus();
    openProv(n, true, true);
  }
  if (nums.length) {
    nums.forEach(function (n, i) {
      n.tabIndex = i === 0 ? 0 : -1;
      // a press focuses the number too: the click, not the focus, decides then
      n.addEventListener("pointerdown", function () { pressed = n; });
      n.addEventListener("click", function (e) {
        e.stopPropagation();
        pressed = null;
        if (anchor === n && pinned) { closeProv(); return; }
        nums.forEach(function (m) { m.tabIndex = -1; });
        n.tabIndex = 0;
        openProv(n, true, false);
      });
      n.addEventListener("pointerenter", function (e) {
        if (e.pointerType === "mouse" && !pinned) openProv(n, false, false);
      });
      n.addEventListener("pointerleave", function (e) {
        if (e.pointerType === "mouse" && !pinned && anchor === n) closeProv();
      });
      n.addEventListener("focus", function () {
        var byPointer = pressed === n;
        pressed = null;
        if (!byPointer && anchor !== n) openProv(n, true, true);
      });
      n.addEventListener("blur", function () {
        setTimeout(function () { if (anchor === n && document.activeElement !== n) closeProv(); }, 0);
      });
      n.addEventListener("keydown", function (e) {
        var k = e.key, stop = true;
        if (k === "ArrowRight" || k === "ArrowDown") focusNum(i + 1);
        else if (k === "ArrowLeft" || k === "ArrowUp") focusNum(i - 1);
        else if (k === "Home") focusNum(0);
        else if (k === "End") focusNum(nums.length - 1);
        else if (k === "Enter" || k === " ") {
          if (anchor === n) closeProv(); else openProv(n, true, true);
        } else stop = false;
        if (stop) { e.preventDefault(); e.stopPropagation(); }
      });
    });
    document.addEventListener("click", function (e) {
      if (anchor && !(pop && pop.contains(e.target))) closeProv();
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && anchor) closeProv();
    });
    window.addEventListener("scroll", function () { if (anchor) place(); }, { passive: true });
    window.addEventListener("resize", function () { if (anchor) place(); });
    document.querySelectorAll(".table-wrap").forEach(function (w) {
      w.addEventListener("scroll", function () { if (anchor) place(); }, { passive: true });
    });
  }

  // ---- Figures: tap (or the zoom button) opens the figure full-screen at a size where its
  // legends read; the view scrolls and pinches; a tap, the close button or Escape closes it.
  // Works with whatever the figure holds (<img>, <picture> or inline <svg>): it shows a copy.
  var zoom = null;
  function openZoom(figure) {
    var media = figure.querySelector("picture, img, svg");
    if (!media) return;
    if (!zoom) {
      zoom = document.createElement("dialog");
      zoom.className = "figure-zoom";
      zoom.setAttribute("aria-label", strings.zoom || "");
      zoom.addEventListener("click", function () { zoom.close(); });
      zoom.addEventListener("close", function () {
        zoom.querySelector(".figure-zoom-body").textContent = "";
        if (zoom.opener) zoom.opener.focus();
      });
      var close = zoom.appendChild(document.createElement("button"));
      close.type = "button";
      close.className = "figure-zoom-close";
      close.setAttribute("aria-label", strings.close || "×");
      close.textContent = "×";
      zoom.appendChild(document.createElement("div")).className = "figure-zoom-body";
      document.body.appendChild(zoom);
    }
    var copy = media.cloneNode(true);
    copy.removeAttribute && copy.removeAttribute("id");
    var img = copy.tagName === "PICTURE" ? copy.querySelector("img") : copy;
    if (img.removeAttribute) { img.removeAttribute("loading"); }
    // 1.3 times the figure's own size (legends drawn at ~9 pt read at ~16 px), at least the window.
    var natural = parseFloat(media.getAttribute("width") ||
      (media.querySelector("img") || media).getAttribute("width")) ||
      media.getBoundingClientRect().width;
    var width = Math.max(doc.clientWidth - 16, Math.min(1.3 * natural, 2400));
    img.style.width = width + "px";
    img.style.maxWidth = "none";
    img.style.height = "auto";
    var body = zoom.querySelector(".figure-zoom-body");
    body.appendChild(copy);
    var cap = figure.querySelector(":scope > figcaption");
    if (cap) {
      cap = cap.cloneNode(true);
      cap.querySelectorAll(".figure-zoom-open").forEach(function (b) { b.remove(); });
      body.appendChild(document.createElement("p")).textContent = cap.textContent.trim();
    }
    zoom.opener = figure.querySelector(".figure-zoom-open");
    zoom.showModal();
    zoom.scrollTop = 0;
    zoom.scrollLeft = 0;
  }
  function addZoomButton(figure) {
    if (!figure.querySelector("picture, img, svg")) return;
    var btn = document.createElement("button");
    btn.type = "button";
    btn.className = "figure-zoom-open";
    btn.setAttribute("aria-label", strings.zoom || "");
    btn.title = strings.zoom || "";
    btn.innerHTML = '<span aria-hidden="true">⤢</span>';
    // At the end of the caption, not over the drawing: in its top right corner the button hid
    // part of a title or a legend, most of all on a phone, where the drawing is narrow.
    var cap = figure.querySelector(":scope > figcaption");
    if (cap) cap.appendChild(btn);
    else figure.insertBefore(btn, figure.firstChild);
    btn.addEventListener("click", function () { openZoom(figure); });
    // One listener on the figure for the drawing, whichever element shows it now: the inline
    // SVG swapped in below, a what-if variant swapped in by whatif.js, or a new drawing the
    // live reload swapped in (which may replace the caption, button and all: added again).
    if (figure.hasAttribute("data-zoomable")) return;
    figure.setAttribute("data-zoomable", "");
    figure.addEventListener("click", function (e) {
      var hit = e.target.closest && e.target.closest("picture, img, svg");
      if (hit && figure.contains(hit) && !hit.closest("figcaption, .fig-desc")) openZoom(figure);
    });
  }
  document.querySelectorAll("main figure").forEach(addZoomButton);

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
      if (img.hasAttribute("aria-describedby")) {   // a diagram's long description
        svg.setAttribute("aria-describedby", img.getAttribute("aria-describedby"));
      }
      img.replaceWith(svg);     // a click on it opens the zoom (the figure's listener)
    }).catch(function () { /* keep the image */ });
  }
  var near = "IntersectionObserver" in window && window.fetch ? new IntersectionObserver(
    function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting) { near.unobserve(e.target); inlineFigure(e.target); }
      });
    }, { rootMargin: "600px 0px" }) : null;
  function watchFigures(root) {
    if (near) root.querySelectorAll("figure > img[src*='.svg']").forEach(function (img) {
      near.observe(img);
    });
  }
  watchFigures(document);
  // The preview server's live reload (`--serve`) swaps a changed block of the chapter into the
  // open page instead of reloading it, and says so with this event on the new block: its
  // figures get what the page's got at load.
  document.addEventListener("bookkit:patched", function (e) {
    var root = e.target;
    if (!root.querySelectorAll) return;
    var figures = [].slice.call(root.querySelectorAll("figure"));
    var around = root.closest && root.closest("figure");     // a part of a figure swapped in
    if (around) figures.push(around);
    figures.forEach(function (figure) {
      if (!figure.querySelector(".figure-zoom-open")) addZoomButton(figure);
      var img = near && figure.querySelector(":scope > img[src*='.svg']");
      if (img) near.observe(img);
    });
  });

  // A display equation wider than the column scrolls sideways (style.css); a keyboard user must
  // be able to reach it to scroll it, so one that overflows becomes a tab stop, and stops being
  // one when the column widens. Measured when laid out (blocks far from the viewport are laid
  // out only when they come near it) and again once the math fonts have arrived.
  if ("ResizeObserver" in window) {
    var fitCheck = function (el) {
      if (el.scrollWidth > el.clientWidth + 1) el.tabIndex = 0;
      else el.removeAttribute("tabindex");
    };
    var displays = document.querySelectorAll("main .katex-display");
    var wide = new ResizeObserver(function (entries) {
      entries.forEach(function (e) { fitCheck(e.target); });
    });
    displays.forEach(function (el) { wide.observe(el); });
    if (document.fonts && document.fonts.ready) {
      document.fonts.ready.then(function () { displays.forEach(fitCheck); });
    }
  }

  // Print shows an external link's address after its text (style.css), except where the text
  // is the address already (the book's links mostly are).
  document.querySelectorAll('main a[href^="http"]').forEach(function (a) {
    if (a.textContent.trim() === a.getAttribute("href")) a.classList.add("bare");
  });

  // Before an in-page jump (a footnote, a cross-reference, the page's contents), every block is
  // laid out (style.css renders the blocks past the opening screen only near the viewport; their
  // estimated sizes would move the target after the jump). theme.js does it for a page opened
  // at a #target.
  function fullLayout() { doc.classList.add("full-layout"); }
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a[href*='#']");
    if (a && a.hash && a.pathname === location.pathname) fullLayout();
  }, true);
  window.addEventListener("hashchange", fullLayout);
})();
