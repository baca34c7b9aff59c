/**
 * Image pages in the source viewer: the resolution a PNG or JPEG records, the page's paper size in
 * points from it, and a source box in the image's pixels landing on the drawn page where the
 * pixels are (the service gives boxes on images in pixels of the page layout, top-left origin).
 */
import { describe, expect, it } from 'vitest';
import { jpegDpi, pngDpi } from '../../../renderer/src/lib/image-resolution.js';
import { DEFAULT_DPI, imageDpi, imagePoints } from '../../../renderer/src/lib/image-size.js';
import { boxRect, fitScale } from '../../../renderer/src/lib/source-box.js';
import { zoomPercent } from '../../../renderer/src/lib/zoom.js';
import { jpeg, png } from '../../helpers/images.js';

const BAR = { x: 10, y: 10, width: 20, height: 5 };

describe('the resolution an image file records', () => {
  it('PNG pHYs and JPEG EXIF or JFIF density, in pixels per inch', async () => {
    expect(pngDpi(await png(50, 40, BAR, 300))).toBeCloseTo(300, 0);
    // libvips records a JPEG's density in EXIF.
    expect(jpegDpi(await jpeg(50, 40, BAR, 200))).toBe(200);
    // A JFIF header as cameras and scanners write it: 150 per inch.
    const jfif = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, ...Buffer.from('JFIF\0'), 1, 2, 1, 0, 150, 0, 150, 0, 0, 0xff, 0xd9]);
    expect(jpegDpi(jfif)).toBe(150);
  });

  it('null when the file says nothing, and for bytes that are not the format', async () => {
    // libvips writes 1 pixel per mm when told nothing: taken as no resolution by imageDpi.
    expect(imageDpi({ width: 1, height: 1, dpi: pngDpi(await png(50, 40, BAR)) })).toBe(DEFAULT_DPI);
    expect(jpegDpi(await jpeg(50, 40, BAR))).toBeNull();
    expect(pngDpi(Buffer.from('not a png at all'))).toBeNull();
    expect(jpegDpi(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 2]))).toBeNull();
    expect(jpegDpi(new Uint8Array())).toBeNull();
  });
});

describe('imagePoints', () => {
  it('a US letter page scanned at 300 dpi is 612 x 792 points, as the same page in a PDF', () => {
    expect(imagePoints({ width: 2550, height: 3300, dpi: 300 })).toEqual({ width: 612, height: 792 });
  });

  it('without a sane resolution 100 % is one image pixel per CSS pixel', () => {
    for (const dpi of [null, 1, 25.4, 72_000]) expect(imageDpi({ width: 10, height: 10, dpi })).toBe(DEFAULT_DPI);
    const size = imagePoints({ width: 960, height: 480, dpi: null });
    // 100 % draws 96/72 CSS px per point: 960 px -> 720 pt -> 960 CSS px.
    expect(size.width * (96 / 72)).toBe(960);
  });
});

describe('a box in image pixels on the drawn image page', () => {
  // A 200 dpi scan of a letter page; the service's layout for it is its pixel size.
  const page = { width: 1700, height: 2200, dpi: 200 };
  const layout = { width: page.width, height: page.height };
  const points = imagePoints(page);
  const box = { page: 1, left: 850, top: 1100, right: 1275, bottom: 1210 };

  it('lands at the same share of the page at any zoom', () => {
    for (const scale of [fitScale(points, 500), fitScale(points, 1200), 2]) {
      const r = boxRect(box, points, scale, 'points', layout);
      const W = points.width * scale;
      const H = points.height * scale;
      expect(r).not.toBeNull();
      expect(r!.x / W).toBeCloseTo(0.5, 6);
      expect(r!.y / H).toBeCloseTo(0.5, 6);
      expect(r!.width / W).toBeCloseTo(425 / 1700, 6);
      expect(r!.height / H).toBeCloseTo(110 / 2200, 6);
    }
  });

  it('at 100 % a 200 dpi page is drawn at 96/200 CSS px per image pixel', () => {
    const scale = 96 / 72;
    expect(zoomPercent(scale)).toBe(100);
    const r = boxRect(box, points, scale, 'points', layout)!;
    expect(r.x).toBeCloseTo(850 * (96 / 200), 6);
    expect(r.width).toBeCloseTo(425 * (96 / 200), 6);
  });
});
