// Cropping a PNG of the window to one element: WebKitWebDriver's element screenshot
// answers a blank image of a few bytes under Xvfb, so an element's capture is cut out of
// the window's. Reads and writes 8-bit, non-interlaced RGB and RGBA, which is what the
// window's screenshot is.

import { deflateSync, inflateSync } from "node:zlib";

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

function paeth(a, b, c) {
  const p = a + b - c;
  const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** The image's width, height, bytes per pixel and unfiltered rows. */
function decode(png) {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error("not a PNG");
  let at = 8;
  let header;
  const data = [];
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString("ascii", at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") header = body;
    else if (type === "IDAT") data.push(body);
    at += 12 + length;
  }
  const [width, height, depth, colour, interlace] = [header.readUInt32BE(0), header.readUInt32BE(4), header[8], header[9], header[12]];
  if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0) throw new Error(`a PNG this cannot crop: depth ${depth}, colour type ${colour}, interlace ${interlace}`);
  const bpp = colour === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * bpp;
  const rows = [];
  let previous = Buffer.alloc(stride);
  for (let y = 0; y < height; y += 1) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i += 1) {
      const left = i >= bpp ? line[i - bpp] : 0;
      const up = previous[i];
      const corner = i >= bpp ? previous[i - bpp] : 0;
      const add = [0, left, up, (left + up) >> 1, paeth(left, up, corner)][filter];
      if (add === undefined) throw new Error(`unknown PNG filter ${filter}`);
      line[i] = (line[i] + add) & 0xff;
    }
    rows.push(line);
    previous = line;
  }
  return { width, height, bpp, colour, rows };
}

/** The part of `png` inside the rectangle (in pixels, clipped to the image). */
export function cropPng(png, { x, y, width, height }) {
  const image = decode(png);
  const left = Math.max(0, Math.round(x));
  const top = Math.max(0, Math.round(y));
  const right = Math.min(image.width, Math.round(x + width));
  const bottom = Math.min(image.height, Math.round(y + height));
  if (right <= left || bottom <= top) throw new Error(`nothing of the image inside ${JSON.stringify({ x, y, width, height })}`);
  const rows = image.rows
    .slice(top, bottom)
    .map((row) => Buffer.concat([Buffer.from([0]), row.subarray(left * image.bpp, right * image.bpp)]));
  const header = Buffer.alloc(13);
  header.writeUInt32BE(right - left, 0);
  header.writeUInt32BE(bottom - top, 4);
  header[8] = 8;
  header[9] = image.colour;
  return Buffer.concat([SIGNATURE, chunk("IHDR", header), chunk("IDAT", deflateSync(Buffer.concat(rows))), chunk("IEND", Buffer.alloc(0))]);
}
