// The compare page's address holds the noise floor the verdicts are judged with: read
// from `floor=` (in percent, the default for junk), written back when it changes.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryRouter, useLocation } from "react-router-dom";
import { floorOfParam, paramOfFloor, useCompareUrl } from "./useCompareUrl";

afterEach(cleanup);

function Probe() {
  const { judged } = useCompareUrl();
  const location = useLocation();
  return (
    <>
      <select data-testid="floor" value={String(judged.noiseFloor)} onChange={(e) => judged.setNoiseFloor(Number(e.target.value))}>
        {[0.01, 0.02, 0.05].map((f) => (
          <option key={f} value={String(f)} />
        ))}
      </select>
      <button data-testid="together" onClick={() => judged.setRoundsView("together")} />
      <span data-testid="search">{location.search}</span>
      <span data-testid="view">{judged.roundsView}</span>
    </>
  );
}

describe("the noise floor in the address", () => {
  it("reads a floor in percent, the default for none or junk", () => {
    expect(floorOfParam("5")).toBe(0.05);
    expect(floorOfParam("0.5")).toBe(0.005);
    for (const junk of [null, "", "five", "-1", "100", "Infinity"]) expect(floorOfParam(junk), String(junk)).toBe(0.02);
    expect(paramOfFloor(0.02)).toBeNull();
    expect(paramOfFloor(0.05)).toBe("5");
    expect(paramOfFloor(0.1)).toBe("10");
  });

  it("opens with the address's floor and writes a new one back, beside the runs", () => {
    render(
      <MemoryRouter initialEntries={["/compare?runs=a,b&floor=1"]}>
        <Probe />
      </MemoryRouter>,
    );
    expect((screen.getByTestId("floor") as HTMLSelectElement).value).toBe("0.01");
    fireEvent.change(screen.getByTestId("floor"), { target: { value: "0.05" } });
    expect(screen.getByTestId("search").textContent).toBe("?runs=a%2Cb&floor=5");
    fireEvent.click(screen.getByTestId("together"));
    expect(screen.getByTestId("search").textContent).toBe("?runs=a%2Cb&floor=5&rounds=together");
    fireEvent.change(screen.getByTestId("floor"), { target: { value: "0.02" } });
    expect(screen.getByTestId("search").textContent).toBe("?runs=a%2Cb&rounds=together");
  });
});
