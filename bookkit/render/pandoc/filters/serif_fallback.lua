-- Characters the body font lacks (fonts.FALLBACK_RANGES: superscripts in "10⁹") are set in the
-- fallback font; the text only (math has its own font). Run as its own filter: a second global
-- `Str` in the quotes filter's file would replace that one.
function Str(el)
  local out, run, fb, changed = pandoc.List(), "", false, false
  local function flush()
    if run == "" then return end
    if fb then out:insert(pandoc.RawInline("latex", "{\\seriffallback " .. run .. "}"))
    else out:insert(pandoc.Str(run)) end
    run = ""
  end
  for _, cp in utf8.codes(el.text) do
    local is_fb = cp >= 0x2070 and cp <= 0x209F
    if is_fb then changed = true end
    if is_fb ~= fb then flush(); fb = is_fb end
    run = run .. utf8.char(cp)
  end
  if not changed then return nil end
  flush()
  return out
end
