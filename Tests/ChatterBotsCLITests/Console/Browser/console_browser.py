"""Drives the web console in headless Chromium (Debian's chromium and chromium-driver) with Selenium.

Usage: console_browser.py URL SCENARIO SCREENSHOT_DIR [BOT ...]
  dashboard: waits until every BOT's row shows "live"; screenshot dashboard.png.
  reminder: as alice, opens the conversation with the first BOT (a username), sends "remind me in 10 minutes to
            stretch", and waits for the bot's answer and a ✓✓ read mark; screenshot reminder.png.
  picture: as alice, sends a picture with a caption to the first BOT (a username) from the page and waits for it to
           come back, shown as pictures, then reacts to it; screenshot picture.png.
  sandbox: the console of `example-bots sandbox` (no fleet): as alice, opens the conversation with the first BOT (any
           friend's username), sends a line, then drops alice's own socket from the fault panel and waits for the
           chat to reconnect; screenshot sandbox.png.
  friend: on the sandbox's console (SANDBOX_API in the environment: its REST base URL), bob (the first BOT) ends his
          friendship with alice and asks again; alice accepts with the Accept button of the request's line;
          screenshot friend.png.
  restart: presses "Restart the server" and waits until every BOT shows backing off, then live again; screenshots
           restart-backing-off.png and restart-live-again.png.
  login: the console asks for the token (CONSOLE_TOKEN in the environment); a wrong one is refused, the right one
         opens the session cookie, and the fleet and its live stream follow; screenshot login.png.
  quit: as alice, opens the conversation with the first BOT, types /quit and waits for the page to say the chat
        ended, with its text field disabled; screenshot quit.png.
  ratelimit: for the first BOT, presses "Rate limit (4008, 5 s)" and waits until its row shows backing off, then live
             again; screenshots ratelimit-backing-off.png and ratelimit-live-again.png.
  burst: follows a trace no record has, then plays a burst of 5,000 log records (20 `logs` events) into the page's
         stream at once, and waits until the newest shows; reports how many lines the list kept, which, and in how
         many changes they were added.
  filter: waits until every BOT shows live, then types the first BOT's name into the name filter and waits until
          the rows are that bot's alone; screenshot filter.png.
  paging: opens the console at ?pageSize=1 and waits until both BOTs are live and the first BOT's row shows; clicks
          Next (the second BOT's row, the address at page=2), then Previous, then loads Next's link as a new page;
          screenshot paging.png.
  tabs: opens the conversation with the first BOT as alice in this tab and in a second one, then fetches
        /console/about from the first; reports whether it answered and how many streams each tab holds open.
Prints one JSON object with what it saw; exits non-zero (with the reason on stderr) when a wait runs out.
"""
import json
import os
import struct
import sys
import urllib.request
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

# The tests' hang guard (Duration.hangGuard): how long the browser waits for anything the page must show before the
# scenario fails. Only a bug waits it out: a whole-suite run on two cores has held processes off the CPU for a minute.
WAIT_SECONDS = 120


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,1280", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    # The driver Debian installs, named explicitly: Selenium must not try to download one.
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)


def row_state(driver, bot):
    # Read in one script: the page replaces its rows on each update, so a found element can go stale.
    return driver.execute_script(
        "const row = Array.from(document.querySelectorAll('tr[data-bot]')).find(r => r.dataset.bot === arguments[0]);"
        "return row ? row.dataset.state : null;", bot)


# Records in the page every state each bot's row has shown, with its latest text, as the page renders it: a state
# that lasts a few seconds (backing off) is seen even when the driver's polls are slow.
STATE_RECORDER = """
window.__seen = window.__seen || {};
const note = () => document.querySelectorAll('tr[data-bot]').forEach(row => {
  const key = row.dataset.bot + ' ' + row.dataset.state;
  const cell = row.querySelector('td.state');
  window.__seen[key] = cell ? cell.innerText : '';
});
if (!window.__stateObserver) {
  window.__stateObserver = new MutationObserver(note);
  window.__stateObserver.observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
}
note();
"""


def record_states(driver):
    driver.execute_script(STATE_RECORDER)


def wait_until_seen(driver, bot, state, what):
    """Waits until the bot's row has shown `state` since `record_states`; returns its latest text in that state."""
    return WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: d.execute_script("const seen = window.__seen || {}; return seen[arguments[0]] ?? null;",
                                   f"{bot} {state}"),
        f"{bot} never showed {what}")


def wait_for_state(driver, bot, state, what):
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: row_state(d, bot) == state, f"{bot} never showed {what}")


def dashboard(driver, shots, bots):
    for bot in bots:
        wait_for_state(driver, bot, "live", "live")
    driver.save_screenshot(os.path.join(shots, "dashboard.png"))
    return {"states": {bot: row_state(driver, bot) for bot in bots},
            "summary": driver.find_element(By.ID, "summary").text}


def ratelimit(driver, shots, bots):
    bot = bots[0]
    wait_for_state(driver, bot, "live", "live")
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_element(By.ID, "faults").is_displayed(),
                                              "the fault buttons never showed")
    Select(driver.find_element(By.ID, "fault-bot")).select_by_visible_text(bot)
    record_states(driver)
    driver.find_element(By.CSS_SELECTOR, 'button[data-fault="rateLimit"]').click()
    backing_off = wait_until_seen(driver, bot, "reconnecting", "backing off")
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: any(f" {bot} " in text and "4008" in text for text in log_texts(d)),
        "the traffic pane never showed the 4008")
    driver.save_screenshot(os.path.join(shots, "ratelimit-backing-off.png"))
    wait_for_state(driver, bot, "live", "live again")
    driver.save_screenshot(os.path.join(shots, "ratelimit-live-again.png"))
    return {"backingOff": backing_off, "result": driver.find_element(By.ID, "fault-result").text,
            "traffic": [text for text in log_texts(driver) if "4008" in text],
            "liveAgain": row_state(driver, bot) == "live"}


def restart(driver, shots, bots):
    # "Restart the server": every BOT backs off while the sandbox is down, then is live again.
    for bot in bots:
        wait_for_state(driver, bot, "live", "live")
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_element(By.ID, "faults").is_displayed(),
                                              "the fault buttons never showed")
    record_states(driver)
    driver.find_element(By.CSS_SELECTOR, 'button[data-fault="restartServer"]').click()
    backing_off = {bot: wait_until_seen(driver, bot, "reconnecting", "backing off") for bot in bots}
    driver.save_screenshot(os.path.join(shots, "restart-backing-off.png"))
    for bot in bots:
        wait_for_state(driver, bot, "live", "live again")
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: "done" in d.find_element(By.ID, "fault-result").text, "the restart never answered")
    driver.save_screenshot(os.path.join(shots, "restart-live-again.png"))
    return {"backingOff": backing_off, "result": driver.find_element(By.ID, "fault-result").text,
            "traffic": [text for text in log_texts(driver) if "1001" in text],
            "liveAgain": {bot: row_state(driver, bot) for bot in bots}}


# Installed before the page's own script: keeps every EventSource the page opens in window.__eventSources, so that a
# scenario can play events into one of them (the page's listeners run as for events from the server), and counts the
# events of each kind the server sent in window.__eventCounts.
EVENT_SOURCE_RECORDER = """
window.__eventSources = [];
window.__eventCounts = {};
const PageEventSource = window.EventSource;
window.EventSource = class extends PageEventSource {
  constructor(...parameters) {
    super(...parameters);
    window.__eventSources.push(this);
    for (const kind of ["ready", "fleet", "logs-ready", "logs", "chat-ready", "chat-lines", "chat-ended"]) {
      this.addEventListener(kind, (event) => {
        if (event.isTrusted) window.__eventCounts[kind] = (window.__eventCounts[kind] || 0) + 1;
      });
    }
  }
};
"""


def event_count(driver, kind):
    return driver.execute_script("return window.__eventCounts[arguments[0]] || 0;", kind)


def open_streams(driver):
    return driver.execute_script("return (window.__eventSources || []).filter(s => s.readyState !== 2).length;")


def burst(driver, shots, bots):
    for bot in bots:
        wait_for_state(driver, bot, "live", "live")
    # A trace no record has: only the records played below show, once the stream carries that choice (its
    # logs-ready comes after the one of the page's first choice).
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: event_count(d, "logs-ready") == 1, "the stream never carried the log")
    driver.find_element(By.ID, "logs-trace").send_keys("t-burst")
    driver.find_element(By.CSS_SELECTOR, '#logs-form button[type="submit"]').click()
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: event_count(d, "logs-ready") == 2, "the stream never followed the trace")
    driver.execute_script(
        "window.__logAdditions = 0;"
        "new MutationObserver(records => { window.__logAdditions += records.filter(r => r.addedNodes.length).length; })"
        "  .observe(document.getElementById('logs'), {childList: true});"
        "const source = window.__eventSources.at(-1);"
        "for (let batch = 0; batch < 20; batch++) {"
        "  const records = [];"
        "  for (let i = 0; i < 250; i++) {"
        "    records.push({time: '12:00:00.000Z', level: 'info', bot: arguments[1], trace: 't-burst',"
        "                  message: 'burst ' + (batch * 250 + i), fields: {}});"
        "  }"
        "  source.dispatchEvent(new MessageEvent('logs', {data: JSON.stringify(records)}));"
        "}", bots[0])
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: any(text.endswith("burst 4999") for text in log_texts(d)[-1:]), "the burst's newest record never showed")
    driver.save_screenshot(os.path.join(shots, "burst.png"))
    shown = [int(text.rsplit(" ", 1)[1]) for text in log_texts(driver) if "burst " in text]
    return {"shown": shown, "lines": len(log_texts(driver)),
            "additions": driver.execute_script("return window.__logAdditions;"),
            "atBottom": driver.execute_script(
                "const list = document.getElementById('logs');"
                "return list.scrollTop + list.clientHeight >= list.scrollHeight - 2;")}


def rows(driver):
    return driver.execute_script("return Array.from(document.querySelectorAll('tr[data-bot]'), r => r.dataset.bot);")


def filter(driver, shots, bots):
    for bot in bots:
        wait_for_state(driver, bot, "live", "live")
    driver.find_element(By.ID, "filter-name").send_keys(bots[0])
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: rows(d) == [bots[0]], "the fleet never showed the filtered rows alone")
    driver.save_screenshot(os.path.join(shots, "filter.png"))
    return {"rows": rows(driver), "pageLabel": driver.find_element(By.ID, "page-label").text}


def paging(driver, shots, bots):
    driver.get(driver.current_url.split("?")[0] + "?pageSize=1")
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: f"{len(bots)} live" in d.find_element(By.ID, "summary").text and rows(d) == [bots[0]],
        "the first page never showed the first bot, every bot live")
    next_link = driver.find_element(By.ID, "next").get_attribute("href")
    driver.find_element(By.ID, "next").click()
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: rows(d) == [bots[1]], "Next never showed the second bot")
    clicked = driver.current_url
    driver.find_element(By.ID, "previous").click()
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: rows(d) == [bots[0]], "Previous never showed the first bot again")
    driver.get(next_link)
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: rows(d) == [bots[1]], "Next's link, loaded as a page, never showed the second bot")
    driver.save_screenshot(os.path.join(shots, "paging.png"))
    return {"nextLink": next_link, "clicked": clicked, "loaded": rows(driver),
            "pageLabel": driver.find_element(By.ID, "page-label").text,
            "nextOnLastPage": driver.find_element(By.ID, "next").get_attribute("href")}


def tabs(driver, shots, bots):
    # Each tab with its chat open: the first tab's requests must still get a connection.
    first = driver.current_window_handle
    open_conversation(driver, bots[0])
    driver.switch_to.new_window("tab")
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": EVENT_SOURCE_RECORDER})
    driver.get(sys.argv[1])
    open_conversation(driver, bots[0])
    second_streams = open_streams(driver)
    driver.save_screenshot(os.path.join(shots, "tabs-second.png"))
    driver.switch_to.window(first)
    driver.execute_script(
        "window.__about = null;"
        "fetch('/console/about', {credentials: 'same-origin'}).then(r => { window.__about = r.status; });")
    status = WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: d.execute_script("return window.__about;"), "the first tab's request never got an answer")
    return {"aboutStatus": status, "firstStreams": open_streams(driver), "secondStreams": second_streams}


def log_traces(driver):
    return driver.execute_script("return Array.from(document.querySelectorAll('#logs li'), li => li.dataset.trace);")


def log_texts(driver):
    return driver.execute_script("return Array.from(document.querySelectorAll('#logs li'), li => li.textContent);")


def chat_lines(driver):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#chat-lines li'), li => [li.className, li.textContent]);")


def open_conversation(driver, bot):
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_element(By.ID, "chat-view").is_displayed(),
                                              "the chat never showed")
    Select(driver.find_element(By.ID, "chat-as")).select_by_visible_text("alice")
    Select(driver.find_element(By.ID, "chat-with")).select_by_value(bot)
    driver.find_element(By.CSS_SELECTOR, '#chat-open button[type="submit"]').click()
    WebDriverWait(driver, WAIT_SECONDS).until(
        lambda d: any(bot in text and "tone-heading" in tone for tone, text in chat_lines(d)),
        "the conversation with the bot never opened")


def reminder(driver, shots, bots):
    open_conversation(driver, bots[0])
    text = "remind me in 10 minutes to stretch"
    driver.find_element(By.ID, "chat-text").send_keys(text)
    driver.find_element(By.ID, "chat-send").click()
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: any("tone-message" in tone for tone, _ in chat_lines(d)), "the bot's answer never showed")
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: any("\u2713\u2713" in line for _, line in chat_lines(d)), "no \u2713\u2713 read mark showed")
    driver.save_screenshot(os.path.join(shots, "reminder.png"))
    # Follow the message's trace in the traffic pane: the first trace id of the reminder bot's records.
    trace = WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: d.execute_script(
            "const item = Array.from(document.querySelectorAll('#logs li')).find("
            "  li => li.dataset.trace && li.textContent.includes(' reminders '));"
            "if (!item) return null; item.querySelector('a.trace').click(); return item.dataset.trace;"),
        "no record of the reminder bot with a trace id showed")
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: log_traces(d) and all(t == trace for t in log_traces(d)), "the trace filter never applied")
    driver.save_screenshot(os.path.join(shots, "reminder-trace.png"))
    return {"lines": chat_lines(driver), "trace": trace, "traceRecords": log_texts(driver)}


def quit(driver, shots, bots):
    open_conversation(driver, bots[0])
    driver.find_element(By.ID, "chat-text").send_keys("/quit")
    driver.find_element(By.ID, "chat-send").click()
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: any("The chat ended" in text for _, text in chat_lines(d)), "the page never said the chat ended")
    driver.save_screenshot(os.path.join(shots, "quit.png"))
    return {"lines": chat_lines(driver), "textDisabled": not driver.find_element(By.ID, "chat-text").is_enabled()}


def red_square_png(path, size=16):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + b"\xcc\x22\x22" * size for _ in range(size))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
    with open(path, "wb") as file:
        file.write(png)


def picture(driver, shots, bots):
    open_conversation(driver, bots[0])
    path = os.path.join(shots, "red-square.png")
    red_square_png(path)
    caption = "a red square"
    driver.find_element(By.ID, "picture-file").send_keys(path)
    driver.find_element(By.ID, "picture-caption").send_keys(caption)
    driver.find_element(By.ID, "picture-send").click()
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: any("tone-message" in tone and "(photo)" in line and caption in line for tone, line in chat_lines(d)),
        "the picture never came back from the bot")
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: len([i for i in pictures(d) if i["width"] > 0]) >= 2, "the pictures never showed as images")
    driver.find_element(By.CSS_SELECTOR, '#reactions button[data-react="\U0001F44D"]').click()
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: any("alice reacted \U0001F44D" in line for _, line in chat_lines(d)), "the reaction never showed")
    driver.save_screenshot(os.path.join(shots, "picture.png"))
    return {"lines": chat_lines(driver), "pictures": pictures(driver)}


def pictures(driver):
    # Each picture in the chat as loaded (its natural size) and the colour of its middle pixel, read through a
    # canvas: the pictures come from the console's own origin, so the canvas may be read.
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#chat-lines img.media'), img => {"
        "  const item = { tone: img.parentElement.className, width: img.complete ? img.naturalWidth : 0,"
        "                 height: img.complete ? img.naturalHeight : 0, pixel: null };"
        "  if (item.width > 0) {"
        "    const canvas = document.createElement('canvas'); canvas.width = item.width; canvas.height = item.height;"
        "    const context = canvas.getContext('2d'); context.drawImage(img, 0, 0);"
        "    item.pixel = Array.from(context.getImageData(item.width >> 1, item.height >> 1, 1, 1).data.slice(0, 3));"
        "  }"
        "  return item;"
        "});")


def sandbox(driver, shots, bots):
    # The console of `example-bots sandbox`: no fleet, the chat and the faults by username.
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_element(By.ID, "sandbox-only").is_displayed(),
                                              "the sandbox's console never said what it is")
    fleet_shown = driver.find_element(By.ID, "fleet-part").is_displayed()
    open_conversation(driver, bots[0])
    text = "hello from the sandbox console"
    driver.find_element(By.ID, "chat-text").send_keys(text)
    driver.find_element(By.ID, "chat-send").click()
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: any("tone-own" in tone and text in line for tone, line in chat_lines(d)), "the message never showed")
    # alice's chat is connected now: the fault list, read again on focus, offers her.
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: d.execute_script(
            "const select = document.getElementById('fault-bot'); select.dispatchEvent(new Event('focus'));"
            "return Array.from(select.options, o => o.value).includes('alice');"),
        "alice never showed among the connected users")
    Select(driver.find_element(By.ID, "fault-bot")).select_by_value("alice")
    driver.find_element(By.CSS_SELECTOR, '#fault-buttons button[data-fault="dropSocket"]').click()
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: any("Reconnected." in line for _, line in chat_lines(d)), "the chat never reconnected after the drop")
    driver.save_screenshot(os.path.join(shots, "sandbox.png"))
    return {"fleetShown": fleet_shown, "lines": chat_lines(driver),
            "faultResult": driver.find_element(By.ID, "fault-result").text}


def rest(api, method, path, token=None, body=None):
    # One call of the sandbox's REST API, as a client of the service would make it.
    headers = {"X-Client-Key": "ck_sandbox", "Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(api + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=WAIT_SECONDS) as response:
        text = response.read()
        return json.loads(text) if text else None


def friend(driver, shots, bots):
    # bob (the first BOT) ends his friendship with alice and asks again over REST; alice's page answers with its
    # Accept button.
    api = os.environ["SANDBOX_API"]
    open_conversation(driver, bots[0])
    bob = rest(api, "POST", "/auth/login", body={"username": bots[0], "password": bots[0] + "-sandbox",
                                                  "device": {"name": "console test", "platform": "test"}})
    alice = rest(api, "GET", "/users?username=alice", bob["accessToken"])["users"][0]["id"]
    rest(api, "DELETE", "/friends/" + alice, bob["accessToken"])
    rest(api, "POST", "/friend-requests", bob["accessToken"], {"username": "alice"})
    accept = WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: d.find_element(By.CSS_SELECTOR, f'#chat-lines button.suggestion[data-line="/accept @{bots[0]}"]'),
        "the friend request never offered an Accept button")
    accept.click()
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
        lambda d: any(f"{bots[0]} is now your friend" in line for _, line in chat_lines(d)),
        "accepting never made them friends again")
    driver.save_screenshot(os.path.join(shots, "friend.png"))
    friends = rest(api, "GET", "/friends", bob["accessToken"])["friends"]
    rest(api, "POST", "/auth/logout", bob["accessToken"])
    return {"lines": chat_lines(driver), "bobsFriends": [f["user"]["username"] for f in friends]}


def login(driver, shots, bots):
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_element(By.ID, "login").is_displayed(),
                                              "the token form never showed")
    driver.find_element(By.ID, "token").send_keys("not-the-token")
    driver.find_element(By.CSS_SELECTOR, '#login button[type="submit"]').click()
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_element(By.ID, "login-error").text,
                                              "a wrong token was not refused")
    refused = driver.find_element(By.ID, "login-error").text
    driver.save_screenshot(os.path.join(shots, "login.png"))
    driver.find_element(By.ID, "token").clear()
    driver.find_element(By.ID, "token").send_keys(os.environ["CONSOLE_TOKEN"])
    driver.find_element(By.CSS_SELECTOR, '#login button[type="submit"]').click()
    for bot in bots:
        wait_for_state(driver, bot, "live", "live")
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_element(By.ID, "connection").text == "live",
                                              "the live stream never connected with the session cookie")
    cookies = driver.execute_script("return document.cookie;")
    return {"refused": refused, "states": {bot: row_state(driver, bot) for bot in bots}, "scriptCookies": cookies}


def main():
    url, scenario, shots, bots = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    os.makedirs(shots, exist_ok=True)
    driver = browser()
    driver.set_page_load_timeout(WAIT_SECONDS)
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": EVENT_SOURCE_RECORDER})
        driver.get(url)
        outcome = {"dashboard": dashboard, "ratelimit": ratelimit, "reminder": reminder, "picture": picture, "login": login,
                   "sandbox": sandbox, "friend": friend, "quit": quit,
                   "restart": restart, "burst": burst, "tabs": tabs,
                   "filter": filter, "paging": paging}[scenario](driver, shots, bots)
        print(json.dumps(outcome), flush=True)
    except Exception as error:  # the Swift test shows the reason and the screenshot of the failure
        driver.save_screenshot(os.path.join(shots, f"{scenario}-failed.png"))
        print(f"{scenario}: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
