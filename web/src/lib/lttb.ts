// Largest-Triangle-Three-Buckets downsampling: keeps the shape of a long series (peaks
// and dips included) in a fixed number of points, so charts stay smooth for hour-long
// runs.

export function lttb<T>(data: T[], threshold: number, x: (d: T) => number, y: (d: T) => number): T[] {
  const n = data.length;
  if (threshold >= n || threshold < 3) return data.slice();
  const out: T[] = [data[0]];
  const every = (n - 2) / (threshold - 2);
  let a = 0;
  for (let i = 0; i < threshold - 2; i++) {
    const avgStart = Math.floor((i + 1) * every) + 1;
    const avgEnd = Math.min(Math.floor((i + 2) * every) + 1, n);
    let avgX = 0;
    let avgY = 0;
    for (let j = avgStart; j < avgEnd; j++) {
      avgX += x(data[j]);
      avgY += y(data[j]);
    }
    const len = Math.max(avgEnd - avgStart, 1);
    avgX /= len;
    avgY /= len;
    const rangeStart = Math.floor(i * every) + 1;
    const rangeEnd = Math.floor((i + 1) * every) + 1;
    const ax = x(data[a]);
    const ay = y(data[a]);
    let maxArea = -1;
    let next = rangeStart;
    for (let j = rangeStart; j < rangeEnd; j++) {
      const area = Math.abs((ax - avgX) * (y(data[j]) - ay) - (ax - x(data[j])) * (avgY - ay));
      if (area > maxArea) {
        maxArea = area;
        next = j;
      }
    }
    out.push(data[next]);
    a = next;
  }
  out.push(data[n - 1]);
  return out;
}

/** Points drawn per series at most. */
export const MAX_POINTS = 1500;
