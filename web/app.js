// The mcp-latch approval page: lists the calls waiting for the person, live, and posts their answers.
// Two pages share it: the local gateway's (index.html: the browser holds its session cookie, the page
// a CSRF value for answers) and the team
// gateway's (team.html at /approve), where the person signs in with their own token and the page
// uses the interactions API (docs/team.md).
//
// Security: every value that came from a call or a server is put into the page with textContent
// only (never innerHTML), after the same escaping the gateway applies to its prompts (escape.js), so
// a path or command can neither inject markup nor hide or reorder what is shown. Answers carry the
// CSRF value or token in a header and a JSON body, which a cross-site page or form cannot send. The team page keeps
// the person's token in this tab's sessionStorage and sends it only in the Authorization header,
// never in a URL.
'use strict';
(function () {
  var esc = globalThis.mcpLatchEscape;
  var pageMeta = document.querySelector('meta[name="mcp-latch-page"]');
  var team = pageMeta !== null && pageMeta.getAttribute('content') === 'team';
  var TEAM_TOKEN_KEY = 'mcp-latch-token';
  /** The team API has no event stream (EventSource cannot send a token header): the list is fetched this often. */
  var TEAM_POLL_MS = 2000;
  var csrfMeta = document.querySelector('meta[name="mcp-latch-csrf"]');
  var token = team ? sessionStorage.getItem(TEAM_TOKEN_KEY) || '' : csrfMeta ? csrfMeta.getAttribute('content') : '';
  /** The local page's requests carry its session cookie (HttpOnly, SameSite=Strict); the team page's carry no cookie. */
  var credentials = team ? 'omit' : 'same-origin';
  var AGAIN = 'Run mcp-latch page --open for a fresh link.';
  /** The team page's "Recently decided": the answers given in this tab (the local page gets them from its gateway). */
  var teamRecent = [];

  var MAX_ARGS_SHOWN = 600;
  var MAX_SEGMENTS_SHOWN = 12;
  /** New items cannot be answered for this long, so a click meant for something else does not land on them. */
  var ARM_DELAY_MS = 400;
  var PRIVILEGE = ['sudo', 'doas', 'su', 'pkexec', 'runas'];
  var CONTEXT_NOTES = {
    nested: 'run by another command',
    substitution: 'inside a substitution',
    subshell: 'in a subshell',
    pipeline: 'part of a pipeline',
    condition: 'in a condition',
    loop: 'in a loop',
    function: 'in a function',
    case: 'in a case branch',
  };

  var list = document.getElementById('items');
  var empty = document.getElementById('empty');
  var announcer = document.getElementById('announcer');
  var connection = document.getElementById('connection');
  var section = document.getElementById('calls');
  var confirmation = document.getElementById('confirmation');
  var recentList = document.getElementById('recent');
  var recentEmpty = document.getElementById('recent-empty');
  var MAX_DIFF_LINES_SHOWN = 200;
  /** id → { card, item } for the items on the page, in arrival order. */
  var shown = new Map();
  var firstRender = true;

  // ---------------------------------------------------------------------------------------------
  // DOM helpers: text only

  function el(tag, className, children) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    });
    return node;
  }

  /** Escape runs as text nodes in one span; escapes are marked so they stand out. */
  function runsNode(runs, className) {
    var node = el('span', className ? 'value ' + className : 'value');
    runs.forEach(function (run) {
      if (run.escape) {
        var mark = el('span', 'esc', [run.text]);
        mark.title = 'escaped character';
        node.appendChild(mark);
      } else {
        node.appendChild(document.createTextNode(run.text));
      }
    });
    return node;
  }

  /** Call-supplied text, escaped. */
  function escaped(text, className) {
    return runsNode(esc.escapeRuns(text === null || text === undefined ? '' : text), className);
  }

  /**
   * A server's or a tool's name: escaped as escapeText does, and every character past ASCII as
   * \uXXXX too (escape.js escapeName): a look-alike name ("gіthub") read as the server it imitates.
   */
  function escapedName(text, className) {
    return runsNode(esc.escapeNameRuns(text === null || text === undefined ? '' : text), className);
  }

  function escapedTruncated(text, max) {
    var full = esc.escapeText(text);
    if (full.length <= max) return escaped(text);
    return el('span', 'value', [esc.escapeTruncated(text, max)]);
  }

  /** Rule texts are plain apart from backslashes; show them exactly as they would be saved. */
  function ruleText(text) {
    return esc.isPlainText(text) ? el('span', 'value', [text]) : escaped(text);
  }

  function field(label, value) {
    return [el('dt', null, [label]), el('dd', null, [value])];
  }

  function heading(level, text) {
    return el('h' + level, null, [text]);
  }

  // ---------------------------------------------------------------------------------------------
  // One waiting call

  function buildCard(item) {
    var request = item.request || {};
    var titleId = 'title-' + item.id;
    var card = el('li', 'item');
    card.setAttribute('aria-labelledby', titleId);
    card.dataset.id = item.id;

    var title = el('h2', 'title', [escapedName(item.server, 'server'), el('span', 'sep', [' / ']), escapedName(item.tool, 'tool')]);
    title.id = titleId;
    var kind = el('span', 'kind kind-' + String(item.kind).replace(/[^a-z]/g, ''), [String(item.kind)]);
    kind.title = 'What the call does';
    card.appendChild(el('div', 'item-head', [title, kind]));
    card.appendChild(riskLine(item.risk));
    var state = el('p', 'state');
    state.setAttribute('aria-live', 'off');
    card.appendChild(state);
    if (item.more > 0) card.appendChild(el('p', 'batch', [item.more + ' more waiting in this batch (shown after this one)']));

    var meta = el('dl', 'meta');
    var created = new Date(item.created);
    var time = el('time', null, [isNaN(created.getTime()) ? '' : created.toLocaleTimeString()]);
    time.dateTime = item.created;
    field('Client session', escaped(item.session)).forEach(function (n) { meta.appendChild(n); });
    field('Server', escapedName(item.server)).forEach(function (n) { meta.appendChild(n); });
    field('Tool', escapedName(item.tool)).forEach(function (n) { meta.appendChild(n); });
    field('Kind', String(item.kind)).forEach(function (n) { meta.appendChild(n); });
    field('Waiting since', time).forEach(function (n) { meta.appendChild(n); });
    card.appendChild(meta);

    if (item.change) card.appendChild(changeSection(item.change));
    card.appendChild(whySection(request));
    if (item.paths && item.paths.length > 0) card.appendChild(pathsSection(item.paths));
    if (request.commandInfo) card.appendChild(commandSection(request.commandInfo, request.runsIn));
    card.appendChild(argsSection(item));
    card.appendChild(promptSection(item));
    var decide = decideSection(item, titleId);
    if (item.editable && item.editable.length > 0) card.appendChild(editSection(item, decide));
    card.appendChild(decide);
    return card;
  }

  function riskLine(risk) {
    var level = risk && ['low', 'medium', 'high'].indexOf(risk.level) >= 0 ? risk.level : 'medium';
    var reasons = risk && risk.reasons && risk.reasons.length > 0 ? ' — ' + risk.reasons.join('; ') : '';
    return el('p', 'risk risk-' + level, [el('strong', null, ['Risk: ' + level]), reasons]);
  }

  /** "waiting — 42 s left", or after the client was answered, until when approving allows a retry. */
  function updateState(entry) {
    var item = entry.item;
    var state = entry.card.querySelector('.state');
    if (!state) return;
    if (item.retryUntil) {
      var until = new Date(item.retryUntil);
      entry.card.classList.add('pending');
      // The gateway takes no edit once the assistant was answered.
      var edit = entry.card.querySelector('details.edit');
      if (edit) edit.remove();
      state.textContent = 'The assistant was answered; approving now allows one identical retry until ' + until.toLocaleTimeString() + '.';
      return;
    }
    var left = Math.max(0, Math.ceil((Date.parse(item.deadline) - Date.now()) / 1000));
    state.textContent = 'Waiting — ' + left + ' s left before the assistant is answered.';
  }

  function sizeText(bytes) {
    return bytes === null || bytes === undefined ? 'unknown size' : bytes + (bytes === 1 ? ' byte' : ' bytes');
  }

  function changeSummary(change) {
    switch (change.action) {
      case 'create': return 'Creates a new file (' + sizeText(change.bytesAfter) + ')';
      case 'replace': return 'Replaces a file of ' + sizeText(change.bytesBefore) + ' (new size ' + sizeText(change.bytesAfter) + ')';
      case 'edit': return 'Edits a file of ' + sizeText(change.bytesBefore) + (change.bytesAfter === null ? '' : ' (new size ' + sizeText(change.bytesAfter) + ')');
      case 'move': return 'Moves a file' + (change.bytesAfter === null ? '' : ' of ' + sizeText(change.bytesAfter)) + (change.bytesBefore === null ? ' to a new name' : ', replacing a file of ' + sizeText(change.bytesBefore));
      default: return 'Changes a file';
    }
  }

  function changeSection(change) {
    var children = [heading(3, 'What will change'), el('p', 'summary', [changeSummary(change) + ': ', el('code', null, [escaped(change.path)])])];
    if (change.from) children.push(el('p', 'from', ['from ', el('code', null, [escaped(change.from)])]));
    if (change.note) children.push(el('p', 'note', [change.note]));
    if (change.diff) {
      var pre = el('pre', 'diff');
      var lines = String(change.diff).split('\n');
      lines.slice(0, MAX_DIFF_LINES_SHOWN).forEach(function (line) {
        var type = line.indexOf('@@') === 0 ? 'hunk' : line.indexOf('+++') === 0 || line.indexOf('---') === 0 ? 'file' : line[0] === '+' ? 'add' : line[0] === '-' ? 'del' : 'ctx';
        // Each line escaped on its own: content cannot forge a line of the diff or of the page.
        pre.appendChild(el('span', 'line line-' + type, [escaped(line)]));
      });
      children.push(pre);
      var more = Math.max(0, lines.length - MAX_DIFF_LINES_SHOWN) + (change.diffMore || 0);
      if (more > 0) children.push(el('p', 'more', ['… ' + more + ' more lines']));
    }
    return el('section', 'change', children);
  }

  function whySection(request) {
    var rule = request.rule
      ? el('p', 'rule', ['Rule: ', el('code', null, [ruleText(request.rule)])])
      : el('p', 'rule', ['Rule: none matched (the mode decided)']);
    return el('section', 'why', [heading(3, 'Why it asks'), el('p', 'reason', [escaped(request.reason || '')]), rule]);
  }

  function pathsSection(paths) {
    var body = el('tbody');
    paths.forEach(function (path) {
      var where = path.inWorkspace
        ? el('span', 'inside', ['inside the workspace'])
        : el('strong', 'outside', ['OUTSIDE the workspace']);
      var cell = el('td', 'path', [el('code', null, [escaped(path.path)])]);
      if (path.realPath && path.realPath !== path.path) {
        cell.appendChild(el('div', 'real', ['real path ', el('code', null, [escaped(path.realPath)])]));
      }
      if (path.via && path.via !== 'argument') cell.appendChild(el('div', 'via', ['from ', escaped(path.via)]));
      if (path.problem) cell.appendChild(el('div', 'problem', ['! ', escaped(path.problem)]));
      var access = el('span', 'access access-' + (path.access === 'write' ? 'write' : 'read'), [path.access === 'write' ? 'write' : 'read']);
      body.appendChild(el('tr', null, [el('td', null, [access]), cell, el('td', null, [where])]));
    });
    var head = el('thead', null, [el('tr', null, [el('th', null, ['Access']), el('th', null, ['Path']), el('th', null, ['Workspace'])])]);
    head.querySelectorAll('th').forEach(function (th) { th.scope = 'col'; });
    return el('section', 'paths', [heading(3, 'Paths'), el('table', null, [head, body])]);
  }

  function commandSection(info, runsIn) {
    var parts = el('ol', 'segments');
    (info.segments || []).slice(0, MAX_SEGMENTS_SHOWN).forEach(function (segment, index) {
      var words = el('span', 'words');
      (segment.words || []).forEach(function (word) {
        words.appendChild(el('code', 'word', [escaped(word)]));
        words.appendChild(document.createTextNode(' '));
      });
      var notes = el('ul', 'notes');
      var wrappers = (segment.wrappers || []).map(function (w) { return String(w).split(/\s+/)[0]; });
      if (wrappers.concat([segment.name]).some(function (name) { return PRIVILEGE.indexOf(name) >= 0; })) {
        notes.appendChild(el('li', 'warn', ['! runs as another user']));
      }
      if (CONTEXT_NOTES[segment.context]) notes.appendChild(el('li', segment.context === 'nested' || segment.context === 'substitution' ? 'warn' : null, [(segment.context === 'nested' || segment.context === 'substitution' ? '! ' : '') + CONTEXT_NOTES[segment.context]]));
      if (segment.assignments && segment.assignments.length > 0) {
        notes.appendChild(el('li', null, ['sets ', escaped(segment.assignments.map(function (a) { return String(a).split('=')[0]; }).join(', '))]));
      }
      if (segment.isStatic === false) notes.appendChild(el('li', 'warn', ['! contains expansions whose value is not known']));
      (info.redirections || []).forEach(function (redirection) {
        if (redirection.segment !== index) return;
        notes.appendChild(redirectionNote(redirection));
      });
      parts.appendChild(el('li', 'segment', [words, notes.childNodes.length > 0 ? notes : null]));
    });
    var children = [heading(3, 'Command'), el('pre', 'raw', [el('code', null, [escapedTruncated(info.raw, 400)])])];
    if (runsIn) {
      children.push(el('p', 'runs-in', runsIn.dir === null
        ? ['Runs in: the server\'s own working directory (not known to mcp-latch)']
        : ['Runs in: ', el('code', null, [escaped(runsIn.dir)]), runsIn.given ? '' : ' (the server\'s default)']));
    }
    children.push(heading(4, 'Its parts'), parts);
    var more = (info.segments || []).length - MAX_SEGMENTS_SHOWN;
    if (more > 0) children.push(el('p', 'more', ['… and ' + more + ' more commands']));
    if (info.stdin) children.push.apply(children, stdinParts(info.stdin));
    var general = el('ul', 'notes');
    (info.redirections || []).forEach(function (redirection) {
      if (redirection.segment === null || redirection.segment === undefined) general.appendChild(redirectionNote(redirection));
    });
    (info.substitutions || []).slice(0, 5).forEach(function (substitution) {
      general.appendChild(el('li', 'warn', ['! ' + substitution.kind + ' substitution runs: ', el('code', null, [escapedTruncated(substitution.text, 120)])]));
    });
    if (info.unanalyzable && info.unanalyzable.length > 0) {
      var reasons = el('ul', 'reasons');
      info.unanalyzable.forEach(function (reason) { reasons.appendChild(el('li', null, [escaped(reason)])); });
      general.appendChild(el('li', 'warn unanalyzable', ['! cannot be fully analysed:', reasons]));
    }
    if (general.childNodes.length > 0) children.push(general);
    return el('section', 'command', children);
  }

  // The text a command reads from the call's stdin argument as code (or xargs as words), line by
  // line as the prompt shows it (docs/approval.md): `bash` with a script on stdin showed only `bash`.
  function stdinParts(stdin) {
    var lines = String(stdin.text).split('\n');
    var what = stdin.reader === 'xargs' ? ['the words xargs adds'] : ['code run by ', escaped(stdin.reader)];
    var pre = el('pre', 'stdin');
    lines.slice(0, MAX_DIFF_LINES_SHOWN).forEach(function (line) {
      // Each line escaped on its own: the script cannot forge a line of the page.
      pre.appendChild(el('span', 'line', [escaped(line)]));
    });
    var title = ['Stdin (argument ', escaped(stdin.arg), ', ' + lines.length + ' line' + (lines.length === 1 ? '' : 's') + '), '].concat(what);
    var parts = [el('h4', null, title), pre];
    if (lines.length > MAX_DIFF_LINES_SHOWN) parts.push(el('p', 'more', ['… ' + (lines.length - MAX_DIFF_LINES_SHOWN) + ' more lines']));
    return parts;
  }

  function redirectionNote(redirection) {
    var verb = { write: 'writes', append: 'appends to', read: 'reads', dup: 'duplicates', heredoc: 'here-document', herestring: 'here-string' }[redirection.kind] || redirection.kind;
    return el('li', redirection.kind === 'write' || redirection.kind === 'append' ? 'redirect warn' : 'redirect', [
      verb + ' ',
      el('code', null, [escaped(redirection.target)]),
      ' (redirection ',
      el('code', null, [escaped((redirection.fd || '') + redirection.op)]),
      ')',
      redirection.isStatic === false ? ' — target not known in advance' : '',
    ]);
  }

  function argsSection(item) {
    // JSON text: only what JSON leaves raw is escaped (no doubled backslashes before every quote).
    var json = esc.escapeJson(item.args);
    var text = el('span', 'value', [esc.cutShown(json, MAX_ARGS_SHOWN)]);
    var children = [heading(3, 'Arguments'), el('pre', 'args', [el('code', null, [text])])];
    if (item.argsMore > 0) children.push(el('p', 'more', ['(' + item.argsMore + ' more characters not sent to this page)']));
    return el('section', 'arguments', children);
  }

  function promptSection(item) {
    // The prompt text is escaped by the gateway already; shown as text, not re-escaped.
    return el('details', 'prompt', [el('summary', null, ['Prompt text (as an approval prompt would show it)']), el('pre', null, [item.message])]);
  }

  /** Every button of a card that answers its call. */
  var ANSWER_BUTTONS = '.choices button, .edit-choices button';
  var EDIT_TITLES = { command: 'Command', cwd: 'Working directory', path: 'Path', content: 'Content' };

  /**
   * Edit, then approve: one box per argument the gateway offers, prefilled with the call's value
   * (set as the box's value, never as markup; the gateway offers only values with nothing to
   * escape). Only changed fields are sent; the gateway decides the changed call again.
   */
  function editSection(item, decide) {
    var boxes = [];
    var fields = el('div', 'edit-fields');
    item.editable.forEach(function (field) {
      var id = 'edit-' + item.id + '-' + field.arg;
      var label = el('label', null, [(EDIT_TITLES[field.role] || 'Argument') + ' (', escaped(field.arg), ')']);
      label.htmlFor = id;
      var box = el('textarea', 'edit-value edit-' + field.role);
      box.id = id;
      box.value = String(field.value);
      box.rows = field.role === 'content' ? Math.min(12, Math.max(3, String(field.value).split('\n').length + 1)) : 1;
      box.spellcheck = false;
      box.setAttribute('autocomplete', 'off');
      boxes.push({ field: field, box: box });
      fields.appendChild(el('div', 'edit-field', [label, box]));
    });
    var run = el('button', 'choice choice-edit', ['Allow the edited call once']);
    run.type = 'button';
    run.disabled = true;
    var error = decide.querySelector('.error');
    run.addEventListener('click', function () {
      var edit = {};
      var changed = 0;
      boxes.forEach(function (entry) {
        if (entry.box.value === entry.field.value) return;
        edit[entry.field.arg] = entry.box.value;
        changed += 1;
      });
      if (changed === 0) {
        error.textContent = 'Nothing was changed: change a field, or use the choices below.';
        return;
      }
      answer(item, 'Allow once', decide.querySelector('textarea.note').value, decide.querySelector('.choices'), error, edit);
    });
    var hint = el('p', 'edit-hint', ['The changed call is checked against your rules again: if they deny it, nothing runs. It is allowed once and never remembered, and the assistant is told what you changed.']);
    return el('details', 'edit', [el('summary', null, ['Edit the call, then approve']), hint, fields, el('div', 'edit-choices', [run])]);
  }

  function decideSection(item, titleId) {
    var noteId = 'note-' + item.id;
    var label = el('label', null, ['Message to the assistant (optional)']);
    label.htmlFor = noteId;
    var note = el('textarea', 'note');
    note.id = noteId;
    note.rows = 2;
    note.maxLength = 2000;
    note.placeholder = 'Sent to the assistant with your decision';
    var choices = el('div', 'choices');
    choices.setAttribute('role', 'group');
    choices.setAttribute('aria-labelledby', titleId);
    var error = el('p', 'error');
    error.setAttribute('role', 'alert');
    (item.choices || []).forEach(function (choice) {
      var kind = choice === 'Deny' ? 'deny' : choice === 'Allow once' ? 'once' : choice === 'Allow for this session' ? 'session' : 'always';
      var prefix = 'Always allow: ';
      var label = kind === 'always' && choice.indexOf(prefix) === 0
        ? [prefix, el('span', 'rules', [ruleText(choice.slice(prefix.length))])]
        : [ruleText(choice)];
      var button = el('button', 'choice choice-' + kind, label);
      button.type = 'button';
      button.disabled = true;
      button.addEventListener('click', function () {
        answer(item, choice, note.value, choices, error);
      });
      choices.appendChild(button);
    });
    setTimeout(function () {
      var card = shown.get(item.id);
      (card ? card.card : choices).querySelectorAll(ANSWER_BUTTONS).forEach(function (button) { button.disabled = false; });
    }, ARM_DELAY_MS);
    return el('div', 'decide', [label, note, choices, error]);
  }

  // ---------------------------------------------------------------------------------------------
  // Answers

  function answer(item, choice, note, choices, error, edit) {
    var card = shown.get(item.id);
    var buttons = (card ? card.card : choices).querySelectorAll(ANSWER_BUTTONS);
    buttons.forEach(function (button) { button.disabled = true; });
    error.textContent = '';
    var body = team ? { decision: choice } : { id: item.id, decision: choice };
    if (note && note.trim() !== '') body.note = note;
    if (edit) body.edit = edit;
    var headers = { 'Content-Type': 'application/json' };
    if (team) headers.Authorization = 'Bearer ' + token;
    else headers['X-Mcp-Latch-Token'] = token;
    // The local page's URLs are relative: it lives below the path its cookie is scoped to.
    fetch(team ? '/api/pending/' + encodeURIComponent(item.id) : 'api/answer', {
      method: 'POST',
      headers: headers,
      body: JSON.stringify(body),
      credentials: credentials,
      cache: 'no-store',
    })
      .then(function (response) {
        if (team && response.status === 401) return signOut('Your token is no longer accepted: sign in again.');
        if (response.ok) {
          var card = shown.get(item.id);
          if (card) card.card.classList.add('answered');
          if (team) {
            teamRecent.unshift({ session: item.session, server: item.server, tool: item.tool, outcome: choice + (edit ? ' (edited)' : ''), by: 'person', at: new Date().toISOString() });
            teamRecent.splice(8);
            renderRecent(teamRecent);
          }
          var what = esc.escapeName(item.server) + ' / ' + esc.escapeName(item.tool);
          var allowed = choice !== 'Deny';
          var effect = !allowed ? 'it will not run.' : edit ? 'the changed call runs now unless your rules deny it.' : item.retryUntil ? 'the assistant\'s identical retry will run.' : 'it runs now.';
          confirmation.classList.toggle('denied', !allowed);
          confirm((allowed ? 'Allowed' : 'Denied') + (edit ? ' (edited)' : '') + ': ' + what + ' (' + esc.escapeText(choice) + ') — ' + effect);
          return;
        }
        return response.json().catch(function () { return {}; }).then(function (data) {
          error.textContent = 'The answer was not accepted: ' + (data && data.error ? String(data.error) : 'HTTP ' + response.status);
          if (response.status !== 404 && response.status !== 409) buttons.forEach(function (button) { button.disabled = false; });
        });
      })
      .catch(function () {
        error.textContent = 'Could not reach the gateway. Is it still running?';
        buttons.forEach(function (button) { button.disabled = false; });
      });
  }

  // ---------------------------------------------------------------------------------------------
  // The list

  /** A visible confirmation of the last answer (also read by screen readers). */
  function confirm(text) {
    var appears = confirmation.hidden;
    confirmation.textContent = text;
    confirmation.hidden = false;
    // Shown above the list: every card moves down.
    if (appears) disarmMoved();
    announce(text);
  }

  /**
   * Security: a card removed (its call withdrawn: the assistant can cancel its own) or a line shown
   * above the list moves the cards under the person's pointer: a click aimed at one call's button
   * would land on another's, already armed. Their answer buttons wait ARM_DELAY_MS again, as a new
   * card's do (round 31 review, T31-6; docs/approval.md). Buttons disabled for another reason
   * (an answer in flight) are left as they are.
   */
  function disarmMoved() {
    shown.forEach(function (entry) {
      entry.card.querySelectorAll(ANSWER_BUTTONS).forEach(function (button) {
        if (button.disabled) return;
        button.disabled = true;
        button.dataset.moved = '1';
      });
    });
    setTimeout(function () {
      shown.forEach(function (entry) {
        entry.card.querySelectorAll(ANSWER_BUTTONS).forEach(function (button) {
          if (button.dataset.moved !== '1') return;
          delete button.dataset.moved;
          button.disabled = false;
        });
      });
    }, ARM_DELAY_MS);
  }

  function renderRecent(recent) {
    recentList.textContent = '';
    (recent || []).forEach(function (entry) {
      var at = new Date(entry.at);
      var time = el('time', null, [isNaN(at.getTime()) ? '' : at.toLocaleTimeString()]);
      time.dateTime = entry.at;
      var outcome = entry.by === 'person' ? ruleText(entry.outcome) : el('span', 'gone', ['not answered: ' + entry.outcome]);
      recentList.appendChild(el('li', 'recent-item', [time, ' ', el('span', 'what', [escapedName(entry.server), ' / ', escapedName(entry.tool)]), ' — ', outcome, ' ', el('span', 'who', ['(' + esc.escapeText(entry.session) + ')'])]));
    });
    recentEmpty.hidden = recentList.childNodes.length > 0;
  }

  function announce(text) {
    announcer.textContent = '';
    // A fresh text node after clearing makes screen readers read it again.
    setTimeout(function () { announcer.textContent = text; }, 50);
  }

  function render(items, recent) {
    renderRecent(recent);
    var ids = new Set(items.map(function (item) { return item.id; }));
    var active = document.activeElement;
    var refocus = null;
    var removed = false;
    shown.forEach(function (entry, id) {
      if (ids.has(id)) return;
      if (entry.card.contains(active)) refocus = entry.card;
      entry.card.remove();
      shown.delete(id);
      removed = true;
    });
    if (removed) disarmMoved();
    var added = [];
    items.forEach(function (item) {
      var existing = shown.get(item.id);
      if (existing) {
        existing.item = item;
        updateState(existing);
        return;
      }
      var card = buildCard(item);
      list.appendChild(card);
      var entry = { card: card, item: item };
      shown.set(item.id, entry);
      updateState(entry);
      added.push(item);
    });
    empty.hidden = shown.size > 0;
    document.title = (shown.size > 0 ? '(' + shown.size + ') ' : '') + 'mcp-latch · approvals';
    if (refocus) {
      // Focus goes to the list, never onto another call's buttons, so a second key press cannot answer it.
      section.focus();
    }
    if (added.length > 0 && !firstRender) {
      announce(added.length === 1
        ? 'New call waiting: ' + esc.escapeName(added[0].server) + ' / ' + esc.escapeName(added[0].tool) + ' from ' + esc.escapeText(added[0].session)
        : added.length + ' new calls waiting');
    } else if (firstRender) {
      announce(shown.size === 0 ? 'No calls are waiting.' : shown.size + (shown.size === 1 ? ' call is' : ' calls are') + ' waiting.');
    }
    firstRender = false;
  }

  function setConnection(text, state) {
    connection.textContent = text;
    connection.className = 'status status-' + state;
  }

  function start() {
    // The event stream's first message is the whole list too; whichever comes first is shown, and
    // this reply only if no event came before it: it can be older than an event that overtook it.
    var live = false;
    fetch('api/pending', { credentials: credentials, cache: 'no-store' })
      .then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.json();
      })
      .then(function (data) { if (!live) render(data.items || [], data.recent || []); })
      .catch(function () { setConnection('Cannot reach the gateway (has it restarted?). ' + AGAIN, 'down'); });

    var events = new EventSource('events');
    events.addEventListener('pending', function (event) {
      live = true;
      setConnection('Live: updates as calls arrive', 'live');
      try {
        var data = JSON.parse(event.data);
        render(data.items || [], data.recent || []);
      } catch (error) {
        setConnection('Received an update that could not be read', 'down');
      }
    });
    events.addEventListener('error', function () {
      if (events.readyState === EventSource.CLOSED) setConnection('Disconnected: the gateway stopped or restarted. ' + AGAIN, 'down');
      else setConnection('Reconnecting…', 'waiting');
    });
  }

  // ---------------------------------------------------------------------------------------------
  // The team page: sign in with one's own token, then the interactions API

  var signinForm = document.getElementById('signin');
  var signedIn = document.getElementById('signed-in');
  var who = document.getElementById('who');
  /** Bumped on every sign-in and sign-out, so a poll of an earlier sign-in renders nothing. */
  var teamSession = 0;

  function teamFetch(path, bearer) {
    return fetch(path, { headers: { Authorization: 'Bearer ' + bearer }, credentials: 'omit', cache: 'no-store' });
  }

  /** A pending call of the API in the shape the cards read (the local page's items). */
  function teamItem(call) {
    var request = call.request || {};
    return {
      id: call.id,
      // Which client made the call tells the person more than its session id.
      session: call.client || call.session,
      server: call.server,
      tool: call.tool,
      kind: call.kind,
      message: call.message,
      request: request,
      paths: request.paths || [],
      args: JSON.stringify(call.args === undefined ? {} : call.args),
      argsMore: 0,
      choices: call.choices,
      created: call.created,
      risk: request.risk,
      change: request.change || null,
      deadline: call.deadline,
      more: 0,
      retryUntil: call.retryUntil,
      // The gateway takes no edit once the assistant was answered.
      editable: call.retryUntil ? [] : call.editable || [],
    };
  }

  function showSignIn(message) {
    signinForm.hidden = false;
    signedIn.hidden = true;
    who.hidden = true;
    document.getElementById('signin-error').textContent = message;
    setConnection('Not signed in', 'waiting');
  }

  function signIn(candidate) {
    var generation = ++teamSession;
    setConnection('Signing in…', 'waiting');
    teamFetch('/api/me', candidate)
      .then(function (response) {
        if (response.status === 401) return { refused: true };
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.json();
      })
      .then(function (me) {
        if (generation !== teamSession) return;
        if (me.refused) {
          sessionStorage.removeItem(TEAM_TOKEN_KEY);
          token = '';
          return showSignIn('This token was not accepted by the gateway.');
        }
        token = candidate;
        sessionStorage.setItem(TEAM_TOKEN_KEY, candidate);
        var user = document.getElementById('user');
        user.textContent = '';
        user.appendChild(escaped(me.user));
        who.hidden = false;
        signinForm.hidden = true;
        signedIn.hidden = false;
        firstRender = true;
        poll(generation);
      })
      .catch(function () {
        if (generation === teamSession) showSignIn('Could not reach the gateway.');
      });
  }

  function signOut(message) {
    teamSession += 1;
    token = '';
    sessionStorage.removeItem(TEAM_TOKEN_KEY);
    teamRecent = [];
    render([], []);
    showSignIn(message || '');
  }

  function poll(generation) {
    teamFetch('/api/pending', token)
      .then(function (response) {
        if (generation !== teamSession) return;
        if (response.status === 401) return signOut('Your token is no longer accepted: sign in again.');
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.json().then(function (data) {
          if (generation !== teamSession) return;
          setConnection('Live: checks for calls every ' + TEAM_POLL_MS / 1000 + ' s', 'live');
          render((data.pending || []).map(teamItem), teamRecent);
        });
      })
      .catch(function () {
        if (generation === teamSession) setConnection('Cannot reach the gateway; trying again…', 'down');
      })
      .then(function () {
        if (generation === teamSession) setTimeout(function () { poll(generation); }, TEAM_POLL_MS);
      });
  }

  function startTeam() {
    signinForm.addEventListener('submit', function (event) {
      event.preventDefault();
      var input = document.getElementById('token');
      var candidate = input.value.trim();
      input.value = '';
      if (candidate !== '') signIn(candidate);
    });
    document.getElementById('signout').addEventListener('click', function () { signOut(''); });
    if (token) signIn(token);
    else showSignIn('');
  }

  if (!esc || (!team && !token)) {
    setConnection('This page could not start (missing script or CSRF value). ' + AGAIN, 'down');
    return;
  }
  if (team) startTeam();
  else start();
  // The countdowns.
  setInterval(function () { shown.forEach(updateState); }, 1000);
})();
