// rfs checks shapes with zod's mini build ('zod/mini'): the same checks and error issues as
// the full build, without a method table on every schema. Loading and building the schemas of
// one page of `recordings list` took about 4 ms less with it (bench/README.md, Start-up).
// The mini build loads no messages; the full build loads English ones when imported. This loads
// the same, so an issue reads "Too small: expected string to have >=1 characters" rather than
// "Invalid input". Imported for its effect by every module that builds schemas.
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());
