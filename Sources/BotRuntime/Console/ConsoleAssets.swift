/// The console page's static files, embedded in the binary as strings: plain HTML, CSS and JavaScript, no build
/// step, nothing fetched from elsewhere (docs/console.md).
enum ConsoleAssets {
    struct Asset {
        var contentType: String
        var body: String
    }

    /// The file served at `path` under `/console` (`/` is the page), if any.
    static func asset(at path: String) -> Asset? {
        switch path {
        case "/", "/index.html": Asset(contentType: "text/html; charset=utf-8", body: html)
        case "/console.css": Asset(contentType: "text/css; charset=utf-8", body: css)
        case "/console.js": Asset(contentType: "text/javascript; charset=utf-8", body: script)
        default: nil
        }
    }

    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>ChatterBots console</title>
    <link rel="stylesheet" href="/console/console.css">
    <script src="/console/console.js" defer></script>
    </head>
    <body>
    <header>
      <h1>ChatterBots console</h1>
      <span id="connection" class="connection">connecting…</span>
    </header>
    <form id="login" class="login" hidden>
      <p>This console needs the control token (<code>CHATTERBOTS_CONTROL_TOKEN</code> of the process).</p>
      <label>Token <input id="token" name="token" type="password" autocomplete="off" required></label>
      <button type="submit">Open the console</button>
      <p id="login-error" class="error" role="alert"></p>
    </form>
    <main id="fleet-view" hidden>
      <p id="sandbox-only" hidden>This is the sandbox's console: chat as a test user, and set off faults on the
        connections of the sandbox's users. The fleet is on the console of <code>example-bots run</code>.</p>
      <section class="summary" id="summary" aria-live="polite"></section>
      <section id="faults" class="faults" hidden>
        <strong>Faults on the sandbox</strong>
        <label><span id="fault-target-label">Bot</span> <select id="fault-bot"></select></label>
        <span id="fault-buttons"></span>
        <span id="fault-result" role="status"></span>
      </section>
      <div id="fleet-part">
      <form id="filters" class="filters" method="get" action="/console/">
        <label>Name <input id="filter-name" name="name" type="search" placeholder="any"></label>
        <label>State <select id="filter-state" name="state">
          <option value="">any</option>
          <option>live</option><option>connecting</option><option>signingIn</option><option>synchronizing</option>
          <option>reconnecting</option><option>starting</option><option>stopping</option><option>stopped</option>
          <option>crashing</option>
        </select></label>
        <noscript><button type="submit">Filter</button></noscript>
        <span class="pager">
          <a id="previous" rel="prev" aria-disabled="true">‹ Previous</a>
          <span id="page-label"></span>
          <a id="next" rel="next" aria-disabled="true">Next ›</a>
        </span>
      </form>
      <table id="fleet">
        <thead><tr>
          <th>Bot</th><th>State</th><th>In</th><th>Out</th><th>Outbox</th><th>Reconnects</th><th>Quarantined</th>
          <th>Messages per minute, last hour</th>
        </tr></thead>
        <tbody id="bots"></tbody>
      </table>
      </div>
      <p id="error" class="error" role="alert"></p>
      <section id="logs-view" class="logs" hidden>
        <h2>Traffic</h2>
        <form id="logs-form" class="filters">
          <label>Bot <select id="logs-bot"><option value="">every bot</option></select></label>
          <label>Trace <input id="logs-trace" autocomplete="off" placeholder="any (click a trace id)"></label>
          <button type="submit">Follow</button>
        </form>
        <ol id="logs" class="chat-lines" aria-live="polite"></ol>
      </section>
      <section id="chat-view" class="chat" hidden>
        <h2>Chat as a test user</h2>
        <form id="chat-open" class="filters">
          <label>As <select id="chat-as"></select></label>
          <label>With <select id="chat-with"></select></label>
          <button type="submit">Open the conversation</button>
        </form>
        <ol id="chat-lines" class="chat-lines" aria-live="polite"></ol>
        <form id="chat-form" class="filters">
          <input id="chat-text" autocomplete="off" placeholder="Type a message (or /help)" size="60" disabled>
          <button type="submit" id="chat-send" disabled>Send</button>
          <span id="reactions" title="React to the bot's newest message">
            <button type="button" data-react="👍" disabled>👍</button>
            <button type="button" data-react="❤️" disabled>❤️</button>
            <button type="button" data-react="😂" disabled>😂</button>
          </span>
        </form>
        <form id="picture-form" class="filters">
          <label>Picture <input id="picture-file" type="file" accept="image/png,image/jpeg,image/gif,image/webp" disabled></label>
          <input id="picture-caption" autocomplete="off" placeholder="Caption" disabled>
          <button type="submit" id="picture-send" disabled>Send the picture</button>
        </form>
      </section>
    </main>
    </body>
    </html>
    """#

    static let css = #"""
    :root { color-scheme: light dark; --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --muted: #6e7781; }
    [hidden] { display: none !important; }
    body { font: 14px/1.4 system-ui, sans-serif; margin: 0 1.5rem 2rem; }
    header { display: flex; align-items: baseline; gap: 1rem; }
    h1 { font-size: 1.3rem; }
    .connection { color: var(--muted); }
    .connection.live { color: var(--ok); }
    .summary { display: flex; gap: .5rem; flex-wrap: wrap; margin-bottom: .8rem; }
    .summary span { border: 1px solid var(--muted); border-radius: 1rem; padding: .1rem .6rem; }
    .filters { display: flex; gap: 1rem; align-items: center; margin-bottom: .6rem; flex-wrap: wrap; }
    .pager { margin-left: auto; display: flex; gap: .5rem; align-items: center; }
    .pager a[aria-disabled] { color: var(--muted); }
    table { border-collapse: collapse; width: 100%; }
    th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid #d0d7de; vertical-align: top; }
    td.number { text-align: right; font-variant-numeric: tabular-nums; }
    .state { font-weight: 600; }
    .state-live { color: var(--ok); }
    .state-reconnecting, .state-connecting, .state-signingIn, .state-synchronizing, .state-starting { color: var(--warn); }
    .state-stopped, .state-crashing, .state-stopping { color: var(--bad); }
    .detail { display: block; color: var(--muted); font-weight: normal; font-size: 12px; max-width: 28rem; }
    svg.chart { width: 180px; height: 28px; }
    svg.chart polyline { fill: none; stroke: currentColor; stroke-width: 1.5; }
    .error { color: var(--bad); }
    .chat h2, .logs h2 { font-size: 1.1rem; margin-top: 1.5rem; }
    .level-warning, .level-error, .level-critical { color: var(--bad); }
    a.trace { color: #0550ae; }
    .chat-lines { list-style: none; padding: .4rem .6rem; margin: 0 0 .6rem; border: 1px solid #d0d7de;
      max-height: 22rem; overflow-y: auto; font-family: ui-monospace, monospace; font-size: 13px; }
    .chat-lines .tone-own { color: #0550ae; }
    .chat-lines .tone-heading { font-weight: 600; }
    .chat-lines .tone-status { color: var(--muted); }
    .chat-lines .tone-error { color: var(--bad); }
    .chat-lines img.media { display: block; min-width: 3rem; max-width: 12rem; max-height: 8rem; margin: .2rem 0 .2rem 3rem;
      border: 1px solid #d0d7de; image-rendering: pixelated; }
    .chat-lines a.media { margin-left: .6rem; }
    .chat-lines button.suggestion { margin-left: .4rem; font-size: 12px; }
    .faults { display: flex; gap: .6rem; align-items: center; flex-wrap: wrap; margin-bottom: .8rem;
      border: 1px dashed var(--muted); padding: .4rem .6rem; }
    .login { max-width: 30rem; display: grid; gap: .6rem; }
    """#

    static let script = #"""
    "use strict";
    (() => {
      const $ = (id) => document.getElementById(id);
      // The page of the fleet shown comes from the address's query (name, state, page, pageSize), as the
      // server reads it: each page has an address of its own, and the pager's links work as plain links.
      const query = readQuery(location.search);

      function readQuery(text) {
        const params = new URLSearchParams(text);
        return {
          name: params.get("name") || "", state: params.get("state") || "",
          page: Math.max(1, parseInt(params.get("page"), 10) || 1), pageSize: params.get("pageSize") || "",
        };
      }

      function search(page = query.page) {
        const params = new URLSearchParams({ page: String(page) });
        if (query.name) params.set("name", query.name);
        if (query.state) params.set("state", query.state);
        if (query.pageSize) params.set("pageSize", query.pageSize);
        return params.toString();
      }

      // Shows the page's address for the query, as a new entry of the history when `asNewEntry`.
      function showAddress(asNewEntry) {
        const address = "/console/?" + search();
        if (address === location.pathname + location.search) return;
        if (asNewEntry) history.pushState(null, "", address); else history.replaceState(null, "", address);
      }

      // What this console offers (the sandbox's own has no fleet and no log tail).
      let about = { fleet: true, logs: true, chat: false, faults: [] };

      async function start() {
        const offer = await fetch("/console/about", { credentials: "same-origin" });
        if (offer.status === 401) { showLogin(); return; }
        if (!offer.ok) { showError(offer); return; }
        about = await offer.json();
        $("login").hidden = true;
        $("fleet-view").hidden = false;
        $("fleet-part").hidden = !about.fleet;
        $("summary").hidden = !about.fleet;
        $("sandbox-only").hidden = about.fleet;
        if (about.fleet) {
          const response = await fetch("/console/fleet?" + search(), { credentials: "same-origin" });
          if (!response.ok) { showError(response); return; }
          render(await response.json());
          choices.fleet = fleetChoice();
        } else {
          $("connection").textContent = "sandbox";
          $("connection").className = "connection live";
          $("fault-target-label").textContent = "User";
          $("fault-bot").addEventListener("focus", refreshFaultUsers);
          refreshFaultUsers();
        }
        if (about.chat) startChat();
        $("logs-view").hidden = !about.logs;
        if (about.logs) choices.logs = logChoice();
        openStream();
      }

      // The sandbox's console names fault targets by username: the users connected now.
      async function refreshFaultUsers() {
        const response = await fetch("/console/faults", { credentials: "same-origin" });
        if (!response.ok) return;
        const offer = await response.json();
        fillFaults(offer.faults, offer.users);
      }

      // The page's one event stream: the fleet, the log and the chat all come on it, each event named after its
      // part. A browser opens at most six connections to a host: a stream per part left a second page none.
      let stream = null;
      let streamId = null;
      // What the stream carries: each part's choice, sent again whenever the stream (re)opens.
      const choices = {};
      // One choice at a time, so that they reach the server in the order they were made.
      let choosing = Promise.resolve();

      function openStream() {
        if (stream) stream.close();
        streamId = null;
        stream = new EventSource("/console/stream");
        stream.addEventListener("ready", (event) => {
          streamId = JSON.parse(event.data).stream;
          const chosen = Object.fromEntries(Object.entries(choices).filter(([, choice]) => choice));
          if (Object.keys(chosen).length) choose(chosen);
        });
        stream.addEventListener("fleet", (event) => {
          $("connection").textContent = "live";
          $("connection").className = "connection live";
          render(JSON.parse(event.data));
        });
        stream.addEventListener("logs-ready", clearLogs);
        stream.addEventListener("logs", showLogs);
        stream.addEventListener("chat-ready", chatReady);
        stream.addEventListener("chat-lines", chatLines);
        stream.addEventListener("chat-ended", chatEnded);
        stream.onerror = () => {
          streamId = null;
          if (!about.fleet) return;
          $("connection").textContent = "reconnecting…";
          $("connection").className = "connection";
        };
      }

      // Records the choices of `parts` (a part's choice, or null to stop it) and sends them to the stream, which
      // then carries them; until the stream is ready they wait for its "ready".
      function choose(parts) {
        Object.assign(choices, parts);
        const send = async () => {
          if (!streamId) return;
          const response = await fetch("/console/stream", {
            method: "POST", credentials: "same-origin",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify(Object.assign({ stream: streamId }, parts)),
          });
          if (!response.ok) showError(response);
        };
        choosing = choosing.then(send, send);
        return choosing;
      }

      function fleetChoice() {
        const choice = { name: query.name, state: query.state, page: query.page };
        if (query.pageSize) choice.pageSize = query.pageSize;
        return choice;
      }

      async function showError(response) {
        let message = response.status + " " + response.statusText;
        try { message = (await response.json()).error || message; } catch (_) {}
        $("error").textContent = message;
      }

      function showLogin() {
        $("fleet-view").hidden = true;
        $("login").hidden = false;
        $("connection").textContent = "signed out";
      }

      async function login(event) {
        event.preventDefault();
        const response = await fetch("/console/session", {
          method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ token: $("token").value }),
        });
        if (response.ok) { $("token").value = ""; $("login-error").textContent = ""; start(); return; }
        let message = "refused";
        try { message = (await response.json()).error; } catch (_) {}
        $("login-error").textContent = message;
      }

      function element(tag, text, className) {
        const node = document.createElement(tag);
        if (text !== undefined) node.textContent = text;
        if (className) node.className = className;
        return node;
      }

      function stateCell(bot) {
        const cell = element("td", undefined, "state state-" + bot.state);
        cell.append(element("span", bot.state === "reconnecting" ? "backing off" : bot.state));
        let detail = "";
        if (bot.state === "reconnecting" && bot.reconnectAt) {
          detail = "until " + new Date(bot.reconnectAt).toLocaleTimeString();
        } else if (bot.state === "stopped" || bot.state === "crashing") {
          detail = bot.stopReason || bot.lastError || "";
        } else {
          detail = "since " + new Date(bot.since).toLocaleTimeString();
        }
        if (bot.lastError && bot.state === "reconnecting") detail += (detail ? ": " : "") + bot.lastError;
        if (detail) cell.append(element("span", detail, "detail"));
        return cell;
      }

      function chart(values) {
        const svgNS = "http://www.w3.org/2000/svg";
        const svg = document.createElementNS(svgNS, "svg");
        svg.setAttribute("class", "chart");
        svg.setAttribute("viewBox", "0 0 59 20");
        svg.setAttribute("preserveAspectRatio", "none");
        const top = Math.max(1, ...values);
        const line = document.createElementNS(svgNS, "polyline");
        line.setAttribute("points", values.map((v, i) => i + "," + (19 - (v / top) * 18).toFixed(1)).join(" "));
        svg.append(line);
        const title = document.createElementNS(svgNS, "title");
        title.textContent = values.reduce((a, b) => a + b, 0) + " messages in the last hour, at most " + top + " a minute";
        svg.append(title);
        return svg;
      }

      function render(fleet) {
        const summary = $("summary");
        summary.replaceChildren(element("span", fleet.total + " bots"));
        for (const [state, count] of Object.entries(fleet.states).sort()) {
          summary.append(element("span", count + " " + state, "state-" + state));
        }
        const rows = fleet.bots.map((bot) => {
          const row = element("tr");
          row.dataset.bot = bot.name;
          row.dataset.state = bot.state;
          row.append(element("td", bot.name), stateCell(bot));
          for (const key of ["messagesIn", "messagesOut", "outboxDepth", "reconnects", "quarantined"]) {
            row.append(element("td", String(bot[key]), "number"));
          }
          const chartCell = element("td");
          chartCell.append(chart(bot.perMinute.length ? bot.perMinute : [0]));
          row.append(chartCell);
          return row;
        });
        $("bots").replaceChildren(...rows);
        $("page-label").textContent = "page " + fleet.page + " of " + fleet.pages + " (" + fleet.matching + " matching)";
        pagerLink($("previous"), fleet.page > 1 ? fleet.page - 1 : null);
        pagerLink($("next"), fleet.page < fleet.pages ? fleet.page + 1 : null);
        $("error").textContent = "";
        renderFaults(fleet);
        renderLogBots(fleet);
      }

      // A pager link to `page` of the query, or none (no page there).
      function pagerLink(link, page) {
        if (page === null) {
          link.removeAttribute("href");
          link.setAttribute("aria-disabled", "true");
        } else {
          link.href = "/console/?" + search(page);
          link.removeAttribute("aria-disabled");
        }
      }

      const faultLabels = {
        dropSocket: "Drop the socket", loseMessageNew: "Lose a message.new", duplicateEvent: "Duplicate message.new",
        rateLimit: "Rate limit (4008, 5 s)", restartServer: "Restart the server", clearFaults: "Clear faults",
      };

      function renderFaults(fleet) {
        fillFaults(fleet.faults || [], fleet.bots.map((bot) => bot.name));
      }

      function fillFaults(faults, names) {
        const panel = $("faults");
        panel.hidden = faults.length === 0;
        if (panel.hidden) return;
        const select = $("fault-bot");
        if (Array.from(select.options, (option) => option.value).join("\n") !== names.join("\n")) {
          const chosen = select.value;
          select.replaceChildren(...names.map((name) => {
            const option = element("option", name);
            option.value = name;
            return option;
          }));
          if (names.includes(chosen)) select.value = chosen;
        }
        const buttons = $("fault-buttons");
        if (buttons.childElementCount === faults.length) return;
        buttons.replaceChildren(...faults.map((fault) => {
          const button = element("button", faultLabels[fault] || fault);
          button.type = "button";
          button.dataset.fault = fault;
          button.addEventListener("click", () => inject(fault));
          return button;
        }));
      }

      async function inject(fault) {
        const response = await fetch("/console/faults", {
          method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(about.fleet ? { bot: $("fault-bot").value, fault } : { user: $("fault-bot").value, fault }),
        });
        let message = response.ok ? (faultLabels[fault] || fault) + ": done" : "refused";
        try { const body = await response.json(); if (body.error) message = body.error; } catch (_) {}
        $("fault-result").textContent = message;
      }

      // The account whose chat the stream carries, and whether the chat's first "ready" opened the conversation.
      let chatAs = null;
      let chatOpened = false;
      // The bot whose conversation the chat opened: each line says so, since pages of one account share a chat.
      let chatWith = null;

      // The traffic pane keeps the newest lines only: a burst of thousands of records must not grow the page.
      const logLimit = 500;
      // Records received and not shown yet: they are shown together at the next frame, with one layout.
      let logBacklog = [];
      let logFrame = 0;

      function followLogs(event) {
        if (event) event.preventDefault();
        clearLogs();
        choose({ logs: logChoice() });
      }

      function logChoice() {
        return { bot: $("logs-bot").value, trace: $("logs-trace").value.trim() };
      }

      // A new choice of the log starts with the last records kept that match it.
      function clearLogs() {
        logBacklog = [];
        $("logs").replaceChildren();
      }

      function showLogs(message) {
        logBacklog.push(...JSON.parse(message.data));
        if (logBacklog.length > logLimit) logBacklog = logBacklog.slice(-logLimit);
        if (!logFrame) logFrame = requestAnimationFrame(showLogBacklog);
      }

      function showLogBacklog() {
        logFrame = 0;
        const records = logBacklog;
        logBacklog = [];
        const fragment = document.createDocumentFragment();
        for (const record of records) fragment.append(logLine(record));
        const list = $("logs");
        list.append(fragment);
        let excess = list.childElementCount - logLimit;
        while (excess-- > 0) list.firstElementChild.remove();
        list.scrollTop = list.scrollHeight;
      }

      function logLine(record) {
        const item = element("li", undefined, "level-" + record.level);
        item.dataset.trace = record.trace || "";
        item.append(record.time + " " + record.level + " " + (record.bot || "-") + " ");
        if (record.trace) {
          const link = element("a", record.trace, "trace");
          link.href = "#";
          link.addEventListener("click", (click) => {
            click.preventDefault();
            $("logs-trace").value = record.trace;
            followLogs();
          });
          item.append(link, " ");
        }
        const fields = Object.entries(record.fields).map(([key, value]) => key + "=" + value).join(" ");
        item.append(record.message + (fields ? " " + fields : ""));
        return item;
      }

      function renderLogBots(fleet) {
        const select = $("logs-bot");
        const names = [""].concat(fleet.bots.map((bot) => bot.name));
        if (Array.from(select.options, (option) => option.value).join("\n") === names.join("\n")) return;
        const chosen = select.value;
        select.replaceChildren(...names.map((name) => {
          const option = element("option", name || "every bot");
          option.value = name;
          return option;
        }));
        if (names.includes(chosen)) select.value = chosen;
      }

      async function startChat() {
        const response = await fetch("/console/chat", { credentials: "same-origin" });
        if (!response.ok) return;
        const offer = await response.json();
        $("chat-as").replaceChildren(...offer.accounts.map((name) => element("option", name)));
        $("chat-with").replaceChildren(...offer.bots.map((bot) => {
          const option = element("option", bot.name + " (" + bot.username + ")");
          option.value = bot.username;
          return option;
        }));
        $("chat-view").hidden = false;
      }

      const chatControls = ["chat-text", "chat-send", "picture-file", "picture-caption", "picture-send"];

      function enableChat(enabled) {
        for (const id of chatControls) $(id).disabled = !enabled;
        for (const button of document.querySelectorAll("#reactions button")) button.disabled = !enabled;
      }

      // Opens the conversation with the chosen bot: in the chat the stream carries when it is that account's,
      // else in that account's chat, which the stream then carries.
      function openChat(event) {
        event.preventDefault();
        const as = $("chat-as").value;
        chatWith = $("chat-with").value;
        $("chat-lines").replaceChildren();
        if (chatAs === as) { say("/dm " + chatWith); return; }
        chatAs = as;
        chatOpened = false;
        choose({ chat: { as } });
      }

      function chatReady() {
        // Each (re)connection of the stream replays the chat's recent lines.
        $("chat-lines").replaceChildren();
        enableChat(true);
        if (!chatOpened) { chatOpened = true; say("/dm " + chatWith); }
        if (!about.fleet) refreshFaultUsers();
      }

      // The chat client ended (/quit, or it could not go on): the stream does not carry it into a new one.
      function chatEnded() {
        chatAs = null;
        choices.chat = null;
        enableChat(false);
        $("chat-lines").append(element("li", "The chat ended: open it again to go on.", "tone-status"));
      }

      function chatLines(message) {
        const list = $("chat-lines");
        for (const line of JSON.parse(message.data)) {
          const item = element("li", line.text, "tone-" + line.tone);
          if (line.media) item.append(mediaView(line.media, chatAs));
          for (const suggestion of line.suggestions || []) {
            const button = element("button", suggestion.label, "suggestion");
            button.type = "button";
            button.dataset.line = suggestion.line;
            button.addEventListener("click", () => {
              for (const sibling of item.querySelectorAll("button.suggestion")) sibling.disabled = true;
              say(suggestion.line);
            });
            item.append(" ", button);
          }
          list.append(item);
        }
        while (list.childElementCount > 300) list.firstElementChild.remove();
        list.scrollTop = list.scrollHeight;
      }

      // A message's file, fetched through the console as the user: a picture shown, anything else a link.
      function mediaView(media, as) {
        const source = "/console/chat/media?" + new URLSearchParams({ as, id: media.id }).toString();
        if (media.kind === "photo") {
          const picture = element("img", undefined, "media");
          picture.src = source;
          picture.alt = media.kind;
          picture.dataset.media = media.id;
          return picture;
        }
        const link = element("a", "download the " + media.kind, "media");
        link.href = source;
        link.dataset.media = media.id;
        return link;
      }

      // One line at a time, in the order typed or clicked: two requests in flight could reach the chat either way.
      let saying = Promise.resolve();
      function say(line) {
        saying = saying.then(() => sayNow(line), () => sayNow(line));
        return saying;
      }

      async function sayNow(line) {
        const response = await fetch("/console/chat/say", {
          method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ as: $("chat-as").value, line, with: chatWith }),
        });
        if (!response.ok) {
          let message = "not sent";
          try { message = (await response.json()).error; } catch (_) {}
          $("chat-lines").append(element("li", message, "tone-error"));
        }
      }

      async function sendPicture(event) {
        event.preventDefault();
        const file = $("picture-file").files[0];
        if (!file) return;
        const data = await new Promise((resolve, reject) => {
          const reader = new FileReader();
          reader.onload = () => resolve(String(reader.result).split(",")[1]);
          reader.onerror = () => reject(reader.error);
          reader.readAsDataURL(file);
        });
        const response = await fetch("/console/chat/picture", {
          method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({
            as: $("chat-as").value, to: $("chat-with").value, contentType: file.type, data,
            caption: $("picture-caption").value,
          }),
        });
        if (!response.ok) {
          let message = "the picture was not sent";
          try { message = (await response.json()).error; } catch (_) {}
          $("chat-lines").append(element("li", message, "tone-error"));
          return;
        }
        $("picture-caption").value = "";
        $("picture-file").value = "";
      }

      function refilter() {
        query.name = $("filter-name").value.trim();
        query.state = $("filter-state").value;
        query.page = 1;
        showAddress(false);
        choose({ fleet: fleetChoice() });
      }

      document.addEventListener("DOMContentLoaded", () => {
        $("login").addEventListener("submit", login);
        $("chat-open").addEventListener("submit", openChat);
        $("logs-form").addEventListener("submit", followLogs);
        $("picture-form").addEventListener("submit", sendPicture);
        for (const button of document.querySelectorAll("#reactions button")) {
          button.addEventListener("click", () => say("/react " + button.dataset.react));
        }
        // What the field holds, for the chat's typing indicator: at most one "typing" a second (the chat repeats
        // typing.start every 3 s while they come), and "cleared" once it is empty or sent. A command is not a
        // message being typed. In the queue of the lines, so that a late "typing" never follows its message.
        let typingSent = false, typingAt = 0;
        function reportTyping(typing) {
          const now = Date.now();
          if (typing && typingSent && now - typingAt < 1000) return;
          if (!typing && !typingSent) return;
          typingSent = typing;
          typingAt = now;
          const as = $("chat-as").value;
          const report = () => fetch("/console/chat/typing", {
            method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ as, typing }),
          });
          saying = saying.then(report, report);
        }
        $("chat-form").addEventListener("submit", (event) => {
          event.preventDefault();
          const text = $("chat-text").value;
          reportTyping(false);
          if (text.trim()) { say(text); $("chat-text").value = ""; }
        });
        $("chat-text").addEventListener("input", () => {
          const text = $("chat-text").value.trimStart();
          reportTyping(text.length > 0 && (!text.startsWith("/") || text.startsWith("//")));
        });
        $("filters").addEventListener("submit", (event) => { event.preventDefault(); refilter(); });
        $("filter-name").addEventListener("input", refilter);
        $("filter-state").addEventListener("change", refilter);
        $("filter-name").value = query.name;
        $("filter-state").value = query.state;
        // A plain click on a pager link turns the page in place, on the same stream; any other (a new tab, a
        // bookmark, no script) follows the link.
        for (const link of [$("previous"), $("next")]) {
          link.addEventListener("click", (event) => {
            if (!link.href || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
            event.preventDefault();
            query.page = readQuery(new URL(link.href).search).page;
            showAddress(true);
            choose({ fleet: fleetChoice() });
          });
        }
        window.addEventListener("popstate", () => {
          Object.assign(query, readQuery(location.search));
          $("filter-name").value = query.name;
          $("filter-state").value = query.state;
          choose({ fleet: fleetChoice() });
        });
        start();
      });
    })();
    """#
}
