import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { SeriesLegend, useHiddenSeries } from "./SeriesLegend";

afterEach(cleanup);

const series = [
  { key: "put p50", name: "put p50", colour: "#2563eb", dash: "" },
  { key: "put p99", name: "put p99", colour: "#2563eb", dash: "6 3" },
];

function Legend() {
  const [hidden, toggle] = useHiddenSeries();
  return <SeriesLegend series={series} hidden={hidden} onToggle={toggle} />;
}

describe("series legend", () => {
  it("draws each series with its dash pattern", () => {
    render(<Legend />);
    const lines = screen.getAllByTestId("legend-item").map((b) => b.querySelector("line"));
    expect(lines[0]?.getAttribute("stroke-dasharray")).toBeNull();
    expect(lines[1]?.getAttribute("stroke-dasharray")).toBe("6 3");
    expect(lines[1]?.getAttribute("stroke")).toBe("#2563eb");
  });

  it("hides a series on a click and shows it on the next", () => {
    render(<Legend />);
    const p99 = screen.getAllByTestId("legend-item")[1];
    expect(p99.getAttribute("aria-pressed")).toBe("true");
    fireEvent.click(p99);
    expect(p99.getAttribute("aria-pressed")).toBe("false");
    expect(screen.getAllByTestId("legend-item")[0].getAttribute("aria-pressed")).toBe("true");
    fireEvent.click(p99);
    expect(p99.getAttribute("aria-pressed")).toBe("true");
  });
});
