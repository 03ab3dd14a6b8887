//! One drawing backend in front of any other: [`Surface`] takes a plotters backend behind a
//! `dyn` reference, so each painter is compiled once however many backends draw it. The
//! viewer draws its canvas and its SVG export through it; without it `draw_roofline` and
//! plotters' generic drawing code were compiled once per backend (23 KB of wasm twice).
//!
//! Each primitive goes to the backend unchanged (a path or polygon as a slice, a style as
//! its colour and width, a text style as its attributes); text is measured from the chart's
//! own text style, as plotters' default `estimate_text_size`, which the canvas and SVG
//! backends both use, does.

use std::error::Error;
use std::fmt;

use plotters_backend::text_anchor::Pos;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontFamily, FontStyle, FontTransform,
};

/// A backend's error, as text (the message the backend gave).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SurfaceError(pub String);

impl fmt::Display for SurfaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Error for SurfaceError {}

/// What a [`Surface`] asks of the backend behind it: plotters' primitives with concrete
/// arguments, so the trait is object-safe.
trait Primitives {
    fn size(&self) -> (u32, u32);
    fn prepare(&mut self) -> Drawn;
    fn present(&mut self) -> Drawn;
    fn pixel(&mut self, at: BackendCoord, color: BackendColor) -> Drawn;
    fn line(&mut self, from: BackendCoord, to: BackendCoord, pen: &Pen) -> Drawn;
    fn rect(&mut self, corners: [BackendCoord; 2], pen: &Pen, fill: bool) -> Drawn;
    fn path(&mut self, points: &[BackendCoord], pen: &Pen) -> Drawn;
    fn circle(&mut self, centre: BackendCoord, radius: u32, pen: &Pen, fill: bool) -> Drawn;
    fn polygon(&mut self, points: &[BackendCoord], pen: &Pen) -> Drawn;
    fn text(&mut self, text: &str, font: &Font<'_>, at: BackendCoord) -> Drawn;
    fn bitmap(&mut self, at: BackendCoord, size: (u32, u32), rgb: &[u8]) -> Drawn;
}

/// What a primitive returns.
type Drawn = Result<(), DrawingErrorKind<SurfaceError>>;

/// The backend's error as a [`SurfaceError`] (a font error passes unchanged).
fn erase<E: Error + Send + Sync>(e: DrawingErrorKind<E>) -> DrawingErrorKind<SurfaceError> {
    match e {
        DrawingErrorKind::DrawingError(e) => {
            DrawingErrorKind::DrawingError(SurfaceError(e.to_string()))
        }
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    }
}

impl<B: DrawingBackend> Primitives for B {
    fn size(&self) -> (u32, u32) {
        self.get_size()
    }
    fn prepare(&mut self) -> Drawn {
        self.ensure_prepared().map_err(erase)
    }
    fn present(&mut self) -> Drawn {
        DrawingBackend::present(self).map_err(erase)
    }
    fn pixel(&mut self, at: BackendCoord, color: BackendColor) -> Drawn {
        self.draw_pixel(at, color).map_err(erase)
    }
    fn line(&mut self, from: BackendCoord, to: BackendCoord, pen: &Pen) -> Drawn {
        self.draw_line(from, to, pen).map_err(erase)
    }
    fn rect(&mut self, [from, to]: [BackendCoord; 2], pen: &Pen, fill: bool) -> Drawn {
        self.draw_rect(from, to, pen, fill).map_err(erase)
    }
    fn path(&mut self, points: &[BackendCoord], pen: &Pen) -> Drawn {
        self.draw_path(points.iter().copied(), pen).map_err(erase)
    }
    fn circle(&mut self, centre: BackendCoord, radius: u32, pen: &Pen, fill: bool) -> Drawn {
        self.draw_circle(centre, radius, pen, fill).map_err(erase)
    }
    fn polygon(&mut self, points: &[BackendCoord], pen: &Pen) -> Drawn {
        self.fill_polygon(points.iter().copied(), pen)
            .map_err(erase)
    }
    fn text(&mut self, text: &str, font: &Font<'_>, at: BackendCoord) -> Drawn {
        self.draw_text(text, font, at).map_err(erase)
    }
    fn bitmap(&mut self, at: BackendCoord, size: (u32, u32), rgb: &[u8]) -> Drawn {
        self.blit_bitmap(at, size, rgb).map_err(erase)
    }
}

/// A style as the backend reads it: a colour and a stroke width.
struct Pen {
    color: BackendColor,
    width: u32,
}

impl Pen {
    fn of<S: BackendStyle>(style: &S) -> Self {
        Pen {
            color: style.color(),
            width: style.stroke_width(),
        }
    }
}

impl BackendStyle for Pen {
    fn color(&self) -> BackendColor {
        self.color
    }
    fn stroke_width(&self) -> u32 {
        self.width
    }
}

/// A text style as the backend reads it when it draws text itself (the canvas and SVG
/// backends do): colour, size, rotation, slant, anchor and family.
struct Font<'a> {
    color: BackendColor,
    size: f64,
    transform: FontTransform,
    style: FontStyle,
    anchor: Pos,
    family: FontFamily<'a>,
}

impl<'a> Font<'a> {
    fn of<S: BackendTextStyle>(style: &'a S) -> Self {
        Font {
            color: style.color(),
            size: style.size(),
            transform: style.transform(),
            style: style.style(),
            anchor: style.anchor(),
            family: style.family(),
        }
    }
}

impl BackendTextStyle for Font<'_> {
    type FontError = SurfaceError;
    fn color(&self) -> BackendColor {
        self.color
    }
    fn size(&self) -> f64 {
        self.size
    }
    fn transform(&self) -> FontTransform {
        self.transform.clone()
    }
    fn style(&self) -> FontStyle {
        self.style
    }
    fn anchor(&self) -> Pos {
        self.anchor
    }
    fn family(&self) -> FontFamily<'_> {
        self.family
    }
    /// Not available: a [`Surface`] measures text with the chart's own style before it
    /// reaches the backend.
    fn layout_box(&self, _text: &str) -> Result<((i32, i32), (i32, i32)), SurfaceError> {
        Err(SurfaceError(
            "this backend lays out text itself: a Surface measures text before it".into(),
        ))
    }
    /// Not available: a backend that rasterises text glyph by glyph needs the chart's font,
    /// which a [`Surface`] does not pass on (the canvas and SVG backends draw text whole).
    fn draw<E, F: FnMut(i32, i32, BackendColor) -> Result<(), E>>(
        &self,
        _text: &str,
        _at: BackendCoord,
        _draw: F,
    ) -> Result<Result<(), E>, SurfaceError> {
        Err(SurfaceError(
            "this backend rasterises text: draw on it directly, not through a Surface".into(),
        ))
    }
}

/// Any plotters backend behind one type: `Surface::new(&mut backend).into_drawing_area()`.
pub struct Surface<'a> {
    backend: &'a mut dyn Primitives,
}

impl<'a> Surface<'a> {
    /// `backend` behind a [`Surface`].
    pub fn new<B: DrawingBackend>(backend: &'a mut B) -> Self {
        Surface { backend }
    }
}

impl DrawingBackend for Surface<'_> {
    type ErrorType = SurfaceError;

    fn get_size(&self) -> (u32, u32) {
        self.backend.size()
    }
    fn ensure_prepared(&mut self) -> Drawn {
        self.backend.prepare()
    }
    fn present(&mut self) -> Drawn {
        self.backend.present()
    }
    fn draw_pixel(&mut self, at: BackendCoord, color: BackendColor) -> Drawn {
        self.backend.pixel(at, color)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Drawn {
        self.backend.line(from, to, &Pen::of(style))
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn {
        self.backend.rect([from, to], &Pen::of(style), fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn {
        let points: Vec<BackendCoord> = path.into_iter().collect();
        self.backend.path(&points, &Pen::of(style))
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        centre: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Drawn {
        self.backend.circle(centre, radius, &Pen::of(style), fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vertices: I,
        style: &S,
    ) -> Drawn {
        let points: Vec<BackendCoord> = vertices.into_iter().collect();
        self.backend.polygon(&points, &Pen::of(style))
    }
    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, style: &S, at: BackendCoord) -> Drawn {
        self.backend.text(text, &Font::of(style), at)
    }
    fn blit_bitmap(&mut self, at: BackendCoord, size: (u32, u32), rgb: &[u8]) -> Drawn {
        self.backend.bitmap(at, size, rgb)
    }
}

#[cfg(test)]
mod tests {
    use plotters::prelude::*;

    use super::Surface;

    /// The same drawing straight onto SVG and through a [`Surface`] gives the same bytes.
    #[test]
    fn a_surface_draws_what_its_backend_would() {
        fn scene<DB: DrawingBackend>(root: &DrawingArea<DB, plotters::coord::Shift>) {
            root.fill(&WHITE).unwrap_or_else(|e| panic!("{e}"));
            let style = TextStyle::from(("sans-serif", 14).into_font()).color(&BLUE);
            let (w, h) = root
                .estimate_text_size("a label", &style)
                .unwrap_or_else(|e| panic!("{e}"));
            root.draw(&Text::new("a label", (10, 10), style))
                .unwrap_or_else(|e| panic!("{e}"));
            root.draw(&Rectangle::new(
                [(5, 5), (15 + w as i32, 15 + h as i32)],
                RED.stroke_width(2),
            ))
            .unwrap_or_else(|e| panic!("{e}"));
            root.draw(&PathElement::new(vec![(0, 50), (40, 60), (80, 40)], GREEN))
                .unwrap_or_else(|e| panic!("{e}"));
            root.draw(&Circle::new((60, 60), 5, BLACK.filled()))
                .unwrap_or_else(|e| panic!("{e}"));
            root.draw(&Polygon::new(
                vec![(90, 90), (99, 80), (80, 99)],
                MAGENTA.mix(0.5),
            ))
            .unwrap_or_else(|e| panic!("{e}"));
        }
        let mut direct = String::new();
        scene(&SVGBackend::with_string(&mut direct, (120, 100)).into_drawing_area());
        let mut through = String::new();
        {
            let mut svg = SVGBackend::with_string(&mut through, (120, 100));
            scene(&Surface::new(&mut svg).into_drawing_area());
        }
        assert!(
            direct.contains("a label") && direct.contains("<circle"),
            "{direct}"
        );
        assert_eq!(direct, through);
    }
}
