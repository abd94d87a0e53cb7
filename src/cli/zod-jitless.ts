import { config } from 'zod';

// zod compiles a parser for each object schema it parses (new Function), and the helper that
// writes them got hot enough for TurboFan while the servers' lists came in. Without them a parse
// costs ~0.7 µs more (a call's result that is not plain text is checked by one). zod reads this
// when a schema is made, so `serve` loads this module before the modules that make them.
config({ jitless: true });
