/* Set the theme before the first paint: no flash of the wrong theme. Loaded (not inlined) in
   the head, before the style sheets: the Content-Security-Policy allows no inline script.
   ASCII only on purpose. */
(function () {
  var t = null;
  try { t = localStorage.getItem("theme"); } catch (e) { /* storage off */ }
  if (t !== "light" && t !== "dark") t = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  document.documentElement.setAttribute("data-theme", t);
  /* A page opened at a #target lays out every block at once: with the estimated sizes of the
     blocks not yet rendered (content-visibility, style.css), the target would move after the
     jump. */
  if (location.hash) document.documentElement.classList.add("full-layout");
})();
