-- Chinese editions: Pandoc writes quotes as TeX `` '' ligatures, which come out in the Latin
-- font with Latin spacing (把 “占着”). Emitting the Unicode marks raw lets xeCJK set them as CJK
-- punctuation (the template declares them FullLeft/FullRight).
local marks = {DoubleQuote = {"\u{201C}", "\u{201D}"}, SingleQuote = {"\u{2018}", "\u{2019}"}}
function Quoted(q)
  local m = marks[q.quotetype]
  local out = pandoc.List({pandoc.RawInline("latex", m[1])})
  out:extend(q.content)
  out:insert(pandoc.RawInline("latex", m[2]))
  return out
end
-- Marks glued to Chinese text stay inside a Str, where the writer would also make them ``.
local quote_marks = {["\u{201C}"] = true, ["\u{201D}"] = true, ["\u{2018}"] = true, ["\u{2019}"] = true}
function Str(el)
  if not el.text:find("[\u{2018}\u{2019}\u{201C}\u{201D}]") then return nil end
  local out, run = pandoc.List(), ""
  for _, cp in utf8.codes(el.text) do
    local ch = utf8.char(cp)
    if quote_marks[ch] then
      if run ~= "" then out:insert(pandoc.Str(run)); run = "" end
      out:insert(pandoc.RawInline("latex", ch))
    else
      run = run .. ch
    end
  end
  if run ~= "" then out:insert(pandoc.Str(run)) end
  return out
end
