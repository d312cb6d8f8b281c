#!/usr/bin/env node
// The `skillrig` command. A launcher that is checked in rather than built, so that a package manager links the
// bin at install time even in a fresh clone, before `pnpm build` has made dist/ (pnpm skips a bin whose file is
// missing, and the README's PATH and the docs' tests rely on node_modules/.bin/skillrig).
import "../dist/bin.js";
