"""Pictures of a table: a scene of simple shapes, drawn to pixels (Pillow) or SVG.

Each game draws a :class:`Scene` for one view (``envs/<game>/picture.py``:
``<Game>Picture(game).scene(state, view)``, reading only what that view may
know); this module turns a scene into an ``H x W x 3`` ``uint8`` image
(:func:`to_rgb`, for ``render_mode="rgb_array"`` and GIFs) or an SVG string
(:func:`to_svg`, for a browser).

Shapes are small frozen dataclasses. Coordinates are pixels, ``(0, 0)`` at
the top left; colours are ``(r, g, b)`` tuples or ``None`` (nothing drawn).
Every shape has

- ``fill``: the inside colour (a :class:`Line`'s and a :class:`Text`'s colour);
- ``outline`` and ``width``: the border colour and width in pixels;
- ``actions``: the action ids the shape stands for (a hand card: every action
  that plays it; a board square: every action that targets it; a button: its
  single action); empty for decoration;
- ``label``: a few words for the shape (an SVG ``<title>``, a tooltip).

Clicking (:func:`resolve_click`): the candidates are the clicked shape's
actions that are legal (or still candidates); one candidate is played;
several are narrowed by the next click. :func:`click_path` finds the
clicks that play a given action, so tests can prove every legal action is
reachable.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

import numpy as np

Colour = tuple  # (r, g, b), each 0..255
Point = tuple  # (x, y)

WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
#: pixels are drawn at this multiple of the scene size, then scaled down (smooth edges)
SUPERSAMPLE = 2
#: the colour of the band around what the last move touched (:func:`last_move_mark`)
LAST_MOVE = (0, 170, 255)
#: the text anchors (the point ``(x, y)`` is the left end, middle or right end of the line, vertically centred)
ANCHORS = ("start", "middle", "end")


@dataclass(frozen=True)
class Rect:
    """A rectangle with its top-left corner at ``(x, y)``; ``radius`` rounds the corners."""

    x: float
    y: float
    w: float
    h: float
    fill: Colour | None = None
    outline: Colour | None = None
    width: float = 1
    radius: float = 0
    actions: tuple = ()
    label: str = ""


@dataclass(frozen=True)
class Circle:
    """A circle (a disc when filled) of radius ``r`` centred on ``(cx, cy)``."""

    cx: float
    cy: float
    r: float
    fill: Colour | None = None
    outline: Colour | None = None
    width: float = 1
    actions: tuple = ()
    label: str = ""


@dataclass(frozen=True)
class Line:
    """A polyline through ``points`` in colour ``fill``, ``width`` pixels wide (``outline`` is unused)."""

    points: tuple
    fill: Colour | None = BLACK
    outline: Colour | None = None
    width: float = 1
    actions: tuple = ()
    label: str = ""


@dataclass(frozen=True)
class Polygon:
    """A closed polygon through ``points``."""

    points: tuple
    fill: Colour | None = None
    outline: Colour | None = None
    width: float = 1
    actions: tuple = ()
    label: str = ""


@dataclass(frozen=True)
class Text:
    """One line of text of height ``size`` at ``(x, y)``: its start, middle or end (``anchor``), vertically centred."""

    x: float
    y: float
    text: str
    fill: Colour | None = BLACK
    outline: Colour | None = None
    width: float = 0
    size: float = 14
    anchor: str = "middle"
    actions: tuple = ()
    label: str = ""

    def __post_init__(self):
        if self.anchor not in ANCHORS:
            raise ValueError(f"Text anchor={self.anchor!r}: expected one of {list(ANCHORS)}")


Shape = Rect | Circle | Line | Polygon | Text
SHAPES = (Rect, Circle, Line, Polygon, Text)


@dataclass
class Scene:
    """A picture: ``width x height`` pixels of ``background``, then ``shapes`` drawn in order."""

    width: int
    height: int
    shapes: list = field(default_factory=list)
    background: Colour = WHITE
    #: a few words for the whole picture (the SVG's ``<title>``)
    title: str = ""

    def add(self, *shapes: Shape) -> None:
        """Append ``shapes`` (drawn over everything before them)."""
        for shape in shapes:
            if not isinstance(shape, SHAPES):
                raise TypeError(f"a scene holds Rect, Circle, Line, Polygon or Text shapes, got {type(shape).__name__}")
        self.shapes.extend(shapes)

    def clickable(self) -> list[Shape]:
        """The shapes that stand for at least one action."""
        return [s for s in self.shapes if s.actions]


# ------------------------------------------------------------------ clicking
def resolve_click(shape: Shape, candidates: Iterable[int]) -> set[int]:
    """The candidates left after clicking ``shape``: its actions among ``candidates`` (the legal actions at first).

    One left: play it. Several: highlight the shapes whose actions meet them
    and narrow again with the next click. None: the click does nothing.
    """
    return set(shape.actions).intersection(candidates)


def click_path(scene: Scene, legal: Sequence[int], action: int, max_clicks: int = 3) -> list[Shape] | None:
    """The fewest clicks (at most ``max_clicks``) that leave exactly ``action``, or None if there are none.

    Only shapes standing for ``action`` help, so the search tries those,
    each click narrowing the candidates as :func:`resolve_click` does.
    """
    shapes = [s for s in scene.shapes if action in s.actions]
    frontier = [(frozenset(legal), [])]
    for _ in range(max_clicks):
        next_frontier = []
        seen = set()
        for candidates, path in frontier:
            for shape in shapes:
                left = frozenset(resolve_click(shape, candidates))
                if left == {action}:
                    return path + [shape]
                if action in left and left != candidates and left not in seen:
                    seen.add(left)
                    next_frontier.append((left, path + [shape]))
        frontier = next_frontier
    return None


# -------------------------------------------------------------------- pixels
@functools.lru_cache(maxsize=64)
def _font(size: int):
    """Pillow's built-in font at ``size`` pixels (its bitmap font where FreeType is missing)."""
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except (TypeError, ImportError, OSError):  # Pillow < 10.1 or no FreeType: the fixed-size bitmap font
        return ImageFont.load_default()


#: browsers draw the SVG's text in DejaVu Sans, up to this much wider than Pillow's font: layouts budget for it
BROWSER_FONT_SLACK = 1.16


def text_width(text: str, size: float) -> float:
    """The width in pixels that ``text`` at ``size`` may take, in Pillow's font or a browser's (the wider)."""
    return _font(max(1, round(size))).getlength(text) * BROWSER_FONT_SLACK


def text_box(shape: Text) -> tuple[float, float, float, float]:
    """``(x0, y0, x1, y1)``: the box a :class:`Text` may cover (see :func:`text_width`)."""
    w = text_width(shape.text, shape.size)
    x0 = {"start": shape.x, "middle": shape.x - w / 2, "end": shape.x - w}[shape.anchor]
    return x0, shape.y - shape.size / 2, x0 + w, shape.y + shape.size / 2


def fit_size(text: str, size: float, max_width: float, min_size: float = 10) -> float:
    """The largest size from ``size`` down to ``min_size`` at which ``text`` fits ``max_width`` (``min_size`` if none)."""
    while size > min_size and text_width(text, size) > max_width:
        size -= 0.5
    return size


def wrap_text(text: str, size: float, max_width: float) -> list[str]:
    """``text`` in lines no wider than ``max_width`` at ``size``, broken between words (a too long word stays whole)."""
    lines: list[str] = []
    for word in text.split():
        if lines and text_width(f"{lines[-1]} {word}", size) <= max_width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


def _pil_colour(colour):
    return None if colour is None else tuple(int(c) for c in colour)


def to_image(scene: Scene):
    """The scene as a Pillow ``RGB`` image of ``scene.width x scene.height`` pixels."""
    try:
        from PIL import Image, ImageDraw
    except ImportError as error:  # pragma: no cover - Pillow is a core dependency
        raise ImportError("drawing pictures needs Pillow: pip install pillow") from error
    k = SUPERSAMPLE
    image = Image.new("RGB", (int(scene.width) * k, int(scene.height) * k), _pil_colour(scene.background))
    draw = ImageDraw.Draw(image)

    def px(value):
        return value * k

    def width_of(shape):
        return max(1, round(shape.width * k)) if shape.width else 0

    for shape in scene.shapes:
        fill, outline = _pil_colour(shape.fill), _pil_colour(shape.outline)
        if isinstance(shape, Rect):
            box = (px(shape.x), px(shape.y), px(shape.x + shape.w) - 1, px(shape.y + shape.h) - 1)
            w = width_of(shape) if outline else 0
            if shape.radius:
                draw.rounded_rectangle(box, radius=px(shape.radius), fill=fill, outline=outline, width=w)
            else:
                draw.rectangle(box, fill=fill, outline=outline, width=w)
        elif isinstance(shape, Circle):
            box = (px(shape.cx - shape.r), px(shape.cy - shape.r), px(shape.cx + shape.r), px(shape.cy + shape.r))
            draw.ellipse(box, fill=fill, outline=outline, width=width_of(shape) if outline else 0)
        elif isinstance(shape, Line):
            if fill is not None and len(shape.points) >= 2:
                points = [(px(x), px(y)) for x, y in shape.points]
                draw.line(points, fill=fill, width=width_of(shape), joint="curve")
        elif isinstance(shape, Polygon):
            points = [(px(x), px(y)) for x, y in shape.points]
            draw.polygon(points, fill=fill, outline=outline, width=width_of(shape) if outline else 0)
        elif isinstance(shape, Text):
            if fill is not None and shape.text:
                anchor = {"start": "lm", "middle": "mm", "end": "rm"}[shape.anchor]
                font = _font(max(1, round(shape.size * k)))
                stroke = width_of(shape) if outline else 0
                draw.text((px(shape.x), px(shape.y)), shape.text, fill=fill, font=font, anchor=anchor,
                          stroke_width=stroke, stroke_fill=outline)
    if k != 1:
        image = image.reduce(k)  # box filter: each pixel the mean of its k x k block
    return image


def to_rgb(scene: Scene) -> np.ndarray:
    """The scene as an ``(height, width, 3)`` ``uint8`` array (Pillow draws it)."""
    return np.asarray(to_image(scene), dtype=np.uint8).copy()


# ----------------------------------------------------------------------- SVG
def _svg_colour(colour) -> str:
    return "none" if colour is None else "#{:02x}{:02x}{:02x}".format(*tuple(int(c) for c in colour))


def _num(value) -> str:
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


def _svg_points(points) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in points)


def _svg_shape(shape: Shape) -> str:
    attrs = []
    if shape.actions:
        attrs.append(f'class="clickable" data-actions="{",".join(str(int(a)) for a in shape.actions)}"')
    if isinstance(shape, (Rect, Circle, Polygon)):
        attrs.append(f'fill="{_svg_colour(shape.fill)}"')
        if shape.outline is not None and shape.width:
            attrs.append(f'stroke="{_svg_colour(shape.outline)}" stroke-width="{_num(shape.width)}"')
    extra = " " + " ".join(attrs) if attrs else ""
    title = f"<title>{escape(shape.label)}</title>" if shape.label else ""
    if isinstance(shape, Rect):
        corner = f' rx="{_num(shape.radius)}"' if shape.radius else ""
        tag = (f'<rect x="{_num(shape.x)}" y="{_num(shape.y)}" width="{_num(shape.w)}" '
               f'height="{_num(shape.h)}"{corner}{extra}')
        return f"{tag}>{title}</rect>" if title else f"{tag}/>"
    if isinstance(shape, Circle):
        tag = f'<circle cx="{_num(shape.cx)}" cy="{_num(shape.cy)}" r="{_num(shape.r)}"{extra}'
        return f"{tag}>{title}</circle>" if title else f"{tag}/>"
    if isinstance(shape, Polygon):
        tag = f'<polygon points="{_svg_points(shape.points)}"{extra}'
        return f"{tag}>{title}</polygon>" if title else f"{tag}/>"
    if isinstance(shape, Line):
        tag = (f'<polyline points="{_svg_points(shape.points)}" fill="none" stroke="{_svg_colour(shape.fill)}" '
               f'stroke-width="{_num(shape.width)}" stroke-linecap="round" stroke-linejoin="round"{extra}')
        return f"{tag}>{title}</polyline>" if title else f"{tag}/>"
    stroke = ""
    if shape.outline is not None and shape.width:
        stroke = (f' stroke="{_svg_colour(shape.outline)}" stroke-width="{_num(shape.width)}" '
                  'paint-order="stroke"')
    return (f'<text x="{_num(shape.x)}" y="{_num(shape.y)}" font-size="{_num(shape.size)}" '
            f'text-anchor="{shape.anchor}" dominant-baseline="central" fill="{_svg_colour(shape.fill)}"'
            f'{stroke}{extra}>{title}{escape(shape.text)}</text>')


def to_svg(scene: Scene) -> str:
    """The scene as a standalone SVG document; shapes with actions get ``class="clickable"`` and ``data-actions``."""
    w, h = int(scene.width), int(scene.height)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
        f'font-family="DejaVu Sans, Arial, sans-serif">'
    ]
    if scene.title:
        parts.append(f"<title>{escape(scene.title)}</title>")
    parts.append(f'<rect x="0" y="0" width="{w}" height="{h}" fill="{_svg_colour(scene.background)}"/>')
    parts.extend(_svg_shape(shape) for shape in scene.shapes)
    parts.append("</svg>")
    return "\n".join(parts)


# ---------------------------------------------------------------- a window
class Window:
    """A pygame window showing rgb frames (``render_mode="human"``); pygame is imported on first use."""

    def __init__(self, caption: str):
        self.caption = caption
        self._screen = None
        self._pygame = None
        self._clock = None

    def show(self, frame: np.ndarray, fps: float) -> None:
        """Draw ``frame`` (H x W x 3 uint8) in the window, opening it on first use, and keep it responsive."""
        if self._pygame is None:
            try:
                import pygame
            except ImportError as error:
                raise ImportError(
                    "render_mode='human' opens a window with pygame, which is not installed: "
                    "pip install 'kakurega[bench]' (or pygame); render_mode='rgb_array' needs no window"
                ) from error
            self._pygame = pygame
        pygame = self._pygame
        height, width = frame.shape[:2]
        if self._screen is None or self._screen.get_size() != (width, height):
            try:
                pygame.display.init()
                self._screen = pygame.display.set_mode((width, height))
            except pygame.error as error:
                raise RuntimeError(
                    f"render_mode='human' could not open a window ({error}); with no display, "
                    "use render_mode='rgb_array' (or set SDL_VIDEODRIVER=dummy to draw off screen)"
                ) from error
            pygame.display.set_caption(self.caption)
            self._clock = pygame.time.Clock()
        surface = pygame.surfarray.make_surface(np.transpose(frame, (1, 0, 2)))
        self._screen.blit(surface, (0, 0))
        pygame.event.pump()
        pygame.display.flip()
        if fps:
            self._clock.tick(fps)

    def close(self) -> None:
        """Close the window if one is open."""
        if self._screen is not None:
            self._pygame.display.quit()
            self._screen = None


# ------------------------------------------------------------- shared pieces
BUTTON_FILL = (236, 240, 246)
BUTTON_OUTLINE = (90, 100, 120)


def button(x: float, y: float, w: float, h: float, text: str, actions: tuple, size: float = 15) -> list[Shape]:
    """A labelled button standing for ``actions`` (its text repeated as the label)."""
    return [
        Rect(x, y, w, h, fill=BUTTON_FILL, outline=BUTTON_OUTLINE, width=1.5, radius=6, actions=tuple(actions),
             label=text),
        Text(x + w / 2, y + h / 2, text, fill=BLACK, size=size),
    ]


def last_move_mark(x: float, y: float, w: float, h: float, label: str = "the last move", pad: float = 5,
                   radius: float = 9) -> Rect:
    """A band in :data:`LAST_MOVE` around the box ``(x, y, w, h)`` that the last move touched.

    Drawn *before* the card or square it marks, so it shows as an outline
    around it and never covers a clickable shape.
    """
    return Rect(x - pad, y - pad, w + 2 * pad, h + 2 * pad, fill=LAST_MOVE, radius=radius, label=label)
