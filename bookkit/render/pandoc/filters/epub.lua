-- EPUB: figures are SVG (the PDF next to it is for LaTeX).
-- the LaTeX source markers carry nothing for a reader
function Div(d)
  if d.classes:includes("bookkit-source") then return {} end
end

function Image(img)
  -- A figure with a caption line of its own keeps the author's alt text (`fig-alt`, written by
  -- bookkit/render/pandoc/realworld.py) as the image's alt; the caption is the figcaption.
  local alt = img.attributes["fig-alt"]
  if alt then
    img.attributes["fig-alt"] = nil
    img.caption = {pandoc.Str(alt)}
  end
  local base = img.src:match("^(.*)%.pdf$")
  if base then
    local svg = base .. ".svg"
    local f = io.open(SRC_DIR .. "/" .. svg, "r")
    if f then f:close(); img.src = svg end
  end
  return img
end

-- pandoc's EPUB writer does not register Figure ids when it rewrites cross-file links
-- (#fig-x stays unresolved in another chapter file): carry the id on a span inside.
function Figure(fig)
  local id = fig.identifier
  if id == nil or id == "" then return nil end
  fig.identifier = ""
  local first = fig.content[1]
  if first and (first.t == "Plain" or first.t == "Para") then
    first.content:insert(1, pandoc.Span({}, {id = id}))
  else
    fig.content:insert(1, pandoc.Plain({pandoc.Span({}, {id = id})}))
  end
  return fig
end

-- texmath has no top-level \tag: show the number after the formula instead.
function Math(m)
  if m.mathtype == "DisplayMath" then
    local body, tag = m.text:match("^(.-)\\tag%*?%s*(%b{})%s*$")
    if tag then
      m.text = body .. " \\qquad \\text{(" .. tag:sub(2, -2) .. ")}"
      return m
    end
  end
end
