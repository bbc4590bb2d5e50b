// A plain text editor with a line-number gutter that marks the lines with problems
// (message on hover and below the editor). No editor library: workloads are short.
import { useRef } from "react";
import type { Problem } from "../api/types";

export function YamlEditor(props: { value: string; onChange: (v: string) => void; problems: Problem[] }) {
  const gutter = useRef<HTMLDivElement>(null);
  const lines = props.value.split("\n").length;
  const bad = new Map(props.problems.map((p) => [p.line, p.message]));
  return (
    <div className="editor" data-testid="workload-editor">
      <div className="gutter" ref={gutter} aria-hidden>
        {Array.from({ length: lines }, (_, i) => (
          <div
            key={i}
            className={bad.has(i + 1) ? "line-error" : undefined}
            data-testid={bad.has(i + 1) ? "error-line" : undefined}
            title={bad.get(i + 1)}
          >
            {i + 1}
          </div>
        ))}
      </div>
      <textarea
        spellCheck={false}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        onScroll={(e) => {
          if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop;
        }}
        aria-label="workload YAML"
        data-testid="workload-textarea"
      />
    </div>
  );
}
