/**
 * skillrig view's web app. Preact (a 4 kB React-compatible runtime: components and hooks without a heavy
 * framework in a bundle the CLI ships), hash routing so every page is a plain link the static server need not know.
 */
import { render, type VNode } from "preact";
import { useEffect, useState } from "preact/hooks";
import "./style.css";
import { isBundle } from "./api.js";
import { RunComparePage } from "./compare-pages.js";
import { ComparePage, EvalPage, IterationPage } from "./eval-pages.js";
import { ErrorBox, useFetch } from "./kit/index.js";
import { RunPage } from "./run-page.js";
import { RunsList } from "./runs-list.js";
import { ServerHome, ServerJob, SubmitJob } from "./server-pages.js";

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = () => {
      setHash(location.hash);
      window.scrollTo(0, 0);
    };
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return hash;
}

function App() {
  const hash = useHash();
  const info = useFetch<{ runs_dir: string; server: string | null }>("/api/info");
  // A page's table state (sort, search, filters) is the hash's query: the route is what comes before "?".
  const parts = hash.replace(/^#\/?/, "").split("?")[0]!.split("/").map(decodeURIComponent);
  let page: VNode;
  const number = (text: string | undefined) => (text && /^[1-9][0-9]{0,8}$/.test(text) ? Number(text) : undefined);
  if (parts[0] === "run" && parts[1]) page = <RunPage id={parts[1]} key={parts[1]} />;
  else if (parts[0] === "compare" && parts[1] && parts[2]) page = <RunComparePage before={parts[1]} after={parts[2]} key={hash} />;
  else if (isBundle && parts[0] === "server")
    page = (
      <main>
        <p class="error">this page needs skillrig view's server: it is not part of a bundle</p>
      </main>
    );
  else if (parts[0] === "eval" && parts[1] && parts[2] === "compare" && number(parts[3]) && number(parts[4]))
    page = <ComparePage id={parts[1]} before={number(parts[3])!} after={number(parts[4])!} key={hash} />;
  else if (parts[0] === "eval" && parts[1] && number(parts[2])) page = <IterationPage id={parts[1]} n={number(parts[2])!} key={hash} />;
  else if (parts[0] === "eval" && parts[1]) page = <EvalPage id={parts[1]} key={parts[1]} />;
  else if (parts[0] === "server" && parts[1] === "job" && parts[2]) page = <ServerJob id={parts[2]} key={parts[2]} />;
  else if (parts[0] === "server" && parts[1] === "new" && parts[2]) page = <SubmitJob skillId={parts[2]} key={parts[2]} />;
  else if (parts[0] === "server") page = <ServerHome />;
  else page = <RunsList server={info.data?.server ?? null} />;
  return (
    <>
      {/* A button, not a link: links here change the route (hash routing). */}
      <button type="button" class="skip" onClick={() => document.getElementById("content")?.focus()}>
        skip to content
      </button>
      <header class="top">
        <a href="#/" class="brand">
          skillrig view
        </a>
        <nav aria-label="main">
          <a href="#/">runs</a>
          {info.data?.server ? <a href="#/server">jobs server</a> : null}
        </nav>
        {info.data ? <span class="muted runs-dir">{info.data.runs_dir}</span> : null}
      </header>
      {info.error ? <ErrorBox error={info.error} /> : null}
      <div id="content" tabIndex={-1}>
        {page}
      </div>
    </>
  );
}

render(<App />, document.getElementById("app")!);
