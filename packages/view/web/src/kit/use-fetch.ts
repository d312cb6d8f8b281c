/** Data loading for every page: one GET through the view's API (or the bundle's data), its answer or its error. */
import { useEffect, useState } from "preact/hooks";
import { getJson } from "../api.js";

export function useFetch<T>(url: string | undefined): { data?: T; error?: Error } {
  const [state, setState] = useState<{ data?: T; error?: Error }>({});
  useEffect(() => {
    if (!url) return;
    let live = true;
    setState({});
    getJson<T>(url).then(
      (data) => live && setState({ data }),
      (error: Error) => live && setState({ error }),
    );
    return () => {
      live = false;
    };
  }, [url]);
  return state;
}
