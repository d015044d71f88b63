/* Set the theme before the first paint: no flash of the wrong theme. Loaded (not inlined) in
   the head, before the style sheets: the Content-Security-Policy allows no inline script. */
(function () {
  var t = null;
  try { t = localStorage.getItem("theme"); } catch (e) { /* storage off */ }
  if (t !== "light" && t !== "dark") t = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  document.documentElement.setAttribute("data-theme", t);
})();
