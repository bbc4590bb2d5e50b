// What this tab's token lets it do, as `GET /api/status` says: the pages disable what
// the read-only token cannot do (start, stop, save, edit, delete) and say why.
import { useQuery } from "@tanstack/react-query";
import { api } from "./client";

export const READ_ONLY_REASON =
  "This tab uses the server's read-only token: it can watch runs and read results, but starting, stopping, " +
  "saving, editing and deleting need the server's full token (Forget token, then enter that one).";

export interface Access {
  /** False with the read-only token. */
  canChange: boolean;
  /** Why not, for a disabled button's tooltip. */
  why?: string;
}

export function useAccess(): Access {
  const status = useQuery({ queryKey: ["status"], queryFn: api.status });
  return status.data?.access === "read" ? { canChange: false, why: READ_ONLY_REASON } : { canChange: true };
}
