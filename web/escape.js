// Escaping for every call-supplied string shown on the approval page: the same rules as the
// gateway's src/latch/escape.ts (a test compares the two on every UTF-16 code unit and code point), so a path or
// command cannot forge a line, hide text or reorder what is shown.
//
//   "/tmp/x\n\nWhy: allowed"  →  /tmp/x\n\nWhy: allowed   (visible \n, one line)
//   "evil\u202Etxt.sh"        →  evil\u202etxt.sh         (bidi override shown, not obeyed)
//   "\x1b[2Jclear"            →  \x1b[2Jclear             (ANSI escape shown, not run)
//
// Backslashes are doubled so an escaped sequence cannot be confused with a literal one.
'use strict';
(function (scope) {
  var UNSAFE = /[\\\u0000-\u001f\u007f-\u009f\u2028\u2029]|\p{Cf}|\p{Default_Ignorable_Code_Point}|[\ud800-\udfff]/gu;
  var NAMED = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

  function escapeChar(ch) {
    if (Object.prototype.hasOwnProperty.call(NAMED, ch)) return NAMED[ch];
    var code = ch.codePointAt(0);
    if (code <= 0xff) return '\\x' + code.toString(16).padStart(2, '0');
    return code <= 0xffff ? '\\u' + code.toString(16).padStart(4, '0') : '\\u{' + code.toString(16) + '}';
  }

  function escapeText(text) {
    return String(text).replace(UNSAFE, escapeChar);
  }

  // JSON text (the call's arguments as JSON.stringify wrote them): JSON already escaped quotes,
  // backslashes and C0 controls; only what it leaves raw is escaped, as \uXXXX (still valid JSON).
  function escapeJson(json) {
    return String(json).replace(UNSAFE, function (ch) {
      if (ch === '\\') return ch;
      return ch.split('').map(function (unit) { return '\\u' + unit.charCodeAt(0).toString(16).padStart(4, '0'); }).join('');
    });
  }

  // Where a head of a shown (escaped) text cut at `at` ends (escape.ts shownEnd): before the
  // character past U+FFFF or the escape ("\u202e") the cut would split, so it shows neither U+FFFD
  // nor "\u20" (round 32 review S32-2). Every lone backslash of a shown text begins an escape.
  var ESCAPE_AT = /\\(?:x[0-9a-f]{2}|u\{[0-9a-f]{1,6}\}|u[0-9a-f]{4}|[\\nrtbf"/])/y;
  function shownEnd(shown, at) {
    if (at >= shown.length) return shown.length;
    var end = at;
    var before = shown.charCodeAt(end - 1);
    var after = shown.charCodeAt(end);
    if (before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff) end -= 1;
    var slash = shown.lastIndexOf('\\', end - 1);
    if (slash < 0 || slash < end - 10) return end;
    var run = slash;
    while (run > 0 && shown[run - 1] === '\\') run -= 1;
    if ((slash - run) % 2 === 1) slash -= 1;
    ESCAPE_AT.lastIndex = slash;
    var escapeEnd = ESCAPE_AT.test(shown) ? ESCAPE_AT.lastIndex : slash + 1;
    return slash < end && escapeEnd > end ? slash : end;
  }

  // A shown text cut at `max` characters (escape.ts cutShown), with the count of the rest.
  function cutShown(shown, max) {
    if (shown.length <= max) return shown;
    var end = shownEnd(shown, max);
    return shown.slice(0, end) + '\u2026 (' + (shown.length - end) + ' more characters)';
  }

  function escapeTruncated(text, max) {
    return cutShown(escapeText(text), max);
  }

  // True when nothing but backslashes would be escaped (rule strings offered as choices are checked so).
  function isPlainText(text) {
    var slashed = String(text).replace(/\\/g, '/');
    return escapeText(slashed) === slashed;
  }

  // The escaped text as runs, so the page can mark escapes (other than a doubled backslash) visibly:
  // [{ text: '/tmp/x', escape: false }, { text: '\\n', escape: true }, …]
  function escapeRuns(text) {
    var source = String(text);
    var runs = [];
    var last = 0;
    source.replace(UNSAFE, function (ch, offset) {
      if (offset > last) runs.push({ text: source.slice(last, offset), escape: false });
      runs.push({ text: escapeChar(ch), escape: ch !== '\\' });
      last = offset + ch.length;
      return ch;
    });
    if (last < source.length) runs.push({ text: source.slice(last), escape: false });
    return runs;
  }

  // A server's or a tool's name (escape.ts escapeName): escapeText, and every character past ASCII
  // written \uXXXX too. MCP's names are ASCII (SEP-986): a name spelled with another script's
  // look-alike letters ("gіthub" with a Cyrillic і, fullwidth "ｆｓ") read as the server it imitates
  // (round 30 review S30-6; the page since round 31, review S31-2). A run of 24 or more spaces is
  // shown as its length.
  var NAME_UNSAFE = /[\\\u0000-\u001f\u007f-\u009f\u2028\u2029]|\p{Cf}|\p{Default_Ignorable_Code_Point}|[\ud800-\udfff]|[^\u0000-\u007e]/gu;
  var SPACE_RUN = / {24,}/g;

  function spaces(run) {
    return '\u27e8' + run.length + ' spaces\u27e9';
  }

  function escapeName(text) {
    return String(text).replace(NAME_UNSAFE, escapeChar).replace(SPACE_RUN, spaces);
  }

  // escapeName as runs, as escapeRuns: each escaped character and each run of spaces marked.
  function escapeNameRuns(text) {
    var source = String(text);
    var runs = [];
    var plain = function (part) {
      var last = 0;
      part.replace(SPACE_RUN, function (run, offset) {
        if (offset > last) runs.push({ text: part.slice(last, offset), escape: false });
        runs.push({ text: spaces(run), escape: true });
        last = offset + run.length;
        return run;
      });
      if (last < part.length) runs.push({ text: part.slice(last), escape: false });
    };
    var last = 0;
    source.replace(NAME_UNSAFE, function (ch, offset) {
      if (offset > last) plain(source.slice(last, offset));
      runs.push({ text: escapeChar(ch), escape: ch !== '\\' });
      last = offset + ch.length;
      return ch;
    });
    if (last < source.length) plain(source.slice(last));
    return runs;
  }

  scope.mcpLatchEscape = Object.freeze({ escapeText: escapeText, escapeJson: escapeJson, escapeTruncated: escapeTruncated, cutShown: cutShown, escapeRuns: escapeRuns, isPlainText: isPlainText, escapeName: escapeName, escapeNameRuns: escapeNameRuns });
})(globalThis);
