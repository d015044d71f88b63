-- LaTeX: the author's file:line before each block (render/pandoc/sources.source_marker) becomes a TeX
-- comment in book.tex, which render/pandoc/latex_errors.py reads back. Only digits and a one-line path
-- pass: a marker can never put anything but a comment into the TeX.
function Div(d)
  if d.classes:includes("bookkit-source") then
    local line, path = d.attributes["line"], d.attributes["path"]
    if line and path and line:match("^%d+$") and not path:find("[\r\n]") then
      return pandoc.RawBlock("latex", "% bookkit-source " .. line .. " " .. path)
    end
    return {}
  end
end

-- xeCJK drops spaces between CJK characters: keep the gap in "第 1 章 入门" headings.
local function is_cjk(cp) return cp and cp >= 0x2E80 end
local function last_cp(s) local c; for _, x in utf8.codes(s) do c = x end; return c end
local function first_cp(s) for _, x in utf8.codes(s) do return x end end

function Header(h)
  local c = h.content
  for i = 2, #c - 1 do
    if c[i].t == "Space" and c[i-1].t == "Str" and c[i+1].t == "Str"
       and is_cjk(last_cp(c[i-1].text)) and is_cjk(first_cp(c[i+1].text)) then
      c[i] = pandoc.RawInline("latex", "\\texorpdfstring{\\quad}{ }")
      break
    end
  end
  h.content = c
  return h
end

-- Wide pipe tables get relative column widths, so they wrap inside the text block.
local function textlen(blocks)
  local s = pandoc.utils.stringify(blocks)
  local n = 0
  for _, c in utf8.codes(s) do
    if c >= 0x2E80 then n = n + 2 else n = n + 1 end
  end
  return n
end

function Table(tbl)
  local ncol = #tbl.colspecs
  local maxw = {}
  for i = 1, ncol do maxw[i] = 1 end
  local function scan(rows)
    for _, row in ipairs(rows) do
      for i, cell in ipairs(row.cells) do
        if i <= ncol then maxw[i] = math.max(maxw[i], textlen(cell.contents)) end
      end
    end
  end
  scan(tbl.head.rows)
  for _, body in ipairs(tbl.bodies) do scan(body.body) end
  local total = 0
  for i = 1, ncol do total = total + maxw[i] end
  -- about 80 monospace-ish columns fit the text block at the table font size
  if total + 2 * ncol <= 80 then return nil end
  for i = 1, ncol do
    local w = math.max(maxw[i], 6)
    tbl.colspecs[i] = {tbl.colspecs[i][1], w}
  end
  local sum = 0
  for i = 1, ncol do sum = sum + tbl.colspecs[i][2] end
  for i = 1, ncol do
    tbl.colspecs[i] = {tbl.colspecs[i][1], 0.98 * tbl.colspecs[i][2] / sum}
  end
  return tbl
end

-- Footnotes cited together ("…[^a][^b][^c]") become one footnote with a paragraph per source.
-- Printed apart, their marks run together ("12131415" reads as one number), and a line that
-- carries several long notes can push the page past its foot: TeX splits only one of the line's
-- insertions (seen on chapter 7's switch table page).
function Inlines(inlines)
  local out = pandoc.Inlines{}
  for _, el in ipairs(inlines) do
    local prev = out[#out]
    if el.t == "Note" and prev and prev.t == "Note" then
      prev.content:extend(el.content)
    else
      out:insert(el)
    end
  end
  return out
end
