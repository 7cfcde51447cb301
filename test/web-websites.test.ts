// The web app's websites: the signed-in home lists the owner's websites (search, pages);
// the add form shows the API's defaults, and its errors are the API's, beside their
// fields, with what was typed kept; a website's page gives the tracking snippet and saves
// settings (an empty password keeps the stored one) and says whether hits arrive (the
// installation check, buffered hits included); deletion asks first; another owner's
// website is not found; every change needs the sign-in's form token.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { hashPassword } from "../src/websites/password-hash.js";
import { PASSWORD_REQUIRED } from "../src/websites/website-rules.js";
import { createTestApp, TEST_PASSWORD_COST, type TestApp } from "./support/test-app.js";
import { type FormFields, signedIn, type WebClient } from "./support/web-client.js";

const PASSWORD = "owner passphrase";
const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

describe("web app websites", () => {
  let t: TestApp;
  let key = "";
  let otherKey = "";

  let client: WebClient;
  const get = (url: string) => client.get(url);
  const post = (url: string, form: FormFields) => client.post(url, form);
  const formToken = (url = "/") => client.formToken(url);
  const apiWebsite = async (id: number) => (await t.call(key, { url: `/api/v1/websites/${id}` })).json();

  before(async () => {
    t = await createTestApp({}, new ManualClock("2026-06-01T12:00:00Z"));
    const created = await t.container.users.create({
      email: "sites@owner.example",
      passwordHash: await hashPassword(PASSWORD, TEST_PASSWORD_COST),
    });
    key = created.apiKey;
    otherKey = await t.createUser("other@owner.example");
    client = await signedIn(t, "sites@owner.example", PASSWORD);
  });

  after(async () => {
    await t.close();
  });

  it("sends a stranger to the sign-in page", async () => {
    const response = await t.app.inject({ method: "GET", url: "/websites/new" });
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, "/sign-in?next=%2Fwebsites%2Fnew");
    assert.equal((await t.app.inject({ method: "GET", url: "/" })).headers.location, "/sign-in");
  });

  it("adds a website with the API's defaults, rules and messages", async () => {
    const form = await get("/websites/new");
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /id="f-privacy-1" name="privacy" type="radio" value="1" checked/);
    assert.match(form.body, /id="f-exclude_bots" name="exclude_bots" type="checkbox" value="1" checked/);
    assert.match(
      form.body,
      /id="f-exclude_datacenters" name="exclude_datacenters" type="checkbox" value="1" checked/,
    );
    assert.doesNotMatch(form.body, /id="f-email" name="email" type="checkbox" value="1" checked/);
    assert.match(form.body, /<option value="UTC" selected>UTC<\/option>/);
    assert.match(form.body, /<option value="Europe\/Berlin">Europe\/Berlin<\/option>/);
    const csrf = await formToken("/websites/new");

    const wrong = await post("/websites", {
      csrf,
      domain: "not a domain",
      privacy: "2",
      exclude_ips: "10.0.0.0/33",
      timezone: "Mars/Olympus",
    });
    assert.equal(wrong.statusCode, 422);
    for (const field of ["domain", "password", "exclude_ips", "timezone"]) {
      assert.match(wrong.body, new RegExp(`id="f-${field}-error"`), `${field} has its error beside it`);
    }
    assert.ok(wrong.body.includes(PASSWORD_REQUIRED));
    assert.match(wrong.body, /value="not a domain"/, "what was typed is kept");
    const crafted = await post("/websites", { csrf, domain: "crafted.example", privacy: "7" });
    assert.equal(crafted.statusCode, 422);
    assert.match(crafted.body, /The privacy must be one of: 0, 1, 2\./);

    const added = await post("/websites", {
      csrf,
      domain: "https://www.Shop.example/",
      privacy: "0",
      email: "1",
      exclude_params: "utm_source\nfbclid",
      exclude_ips: "203.0.113.0/24",
      timezone: "Europe/Berlin",
    });
    assert.equal(added.statusCode, 303, added.body);
    const id = Number(/^\/websites\/(\d+)\?added=1$/.exec(String(added.headers.location))?.[1]);
    assert.ok(id > 0);
    const { data } = await apiWebsite(id);
    assert.equal(data.domain, "shop.example");
    assert.equal(data.privacy, 0);
    assert.equal(data.email, 1);
    assert.equal(data.exclude_bots, 0, "an unchecked box is 0");
    assert.equal(data.exclude_datacenters, 0);
    assert.equal(data.exclude_params, "utm_source\nfbclid");
    assert.equal(data.exclude_ips, "203.0.113.0/24");
    assert.equal(data.timezone, "Europe/Berlin");

    const taken = await post("/websites", { csrf, domain: "shop.example", privacy: "1" });
    assert.equal(taken.statusCode, 422);
    assert.match(taken.body, /The domain has already been taken\./);

    const page = await get(`/websites/${id}?added=1`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Website added\./);
    assert.match(
      page.body,
      /&lt;script defer src=&quot;http:\/\/localhost:80\/js\/script\.js&quot; data-host=&quot;http:\/\/localhost:80&quot;&gt;&lt;\/script&gt;/,
    );
    assert.match(page.body, /<option value="Europe\/Berlin" selected>/);
  });

  it("refuses over-long values with the API's messages, beside their fields, keeping what was typed", async () => {
    const csrf = await formToken("/websites/new");
    const form = await get("/websites/new");
    assert.match(form.body, /name="password" type="password" autocomplete="new-password" maxlength="128"/);
    const sent = {
      domain: `${"d".repeat(1100)}.example`,
      privacy: "2",
      password: "p".repeat(129),
      exclude_ips: "203.0.113.1,".repeat(10_000),
      timezone: "UTC",
    };
    const api = await t.call(key, { method: "POST", url: "/api/v1/websites", form: sent });
    assert.equal(api.statusCode, 422);
    const messages: Record<string, string[]> = api.json().message;
    const refused = await post("/websites", { csrf, ...sent });
    assert.equal(refused.statusCode, 422, refused.body.slice(0, 300));
    for (const field of ["domain", "password", "exclude_ips"]) {
      const beside = new RegExp(`id="f-${field}-error">([^<]*)<`).exec(refused.body)?.[1];
      assert.ok(messages[field], `the API refuses the ${field}`);
      assert.equal(
        beside,
        messages[field]?.join(" ").replace(/"/g, "&quot;"),
        `the ${field} has the API's message`,
      );
    }
    assert.ok(refused.body.includes(`value="${sent.domain}"`), "the domain is kept");
    assert.match(refused.body, /id="f-privacy-2" name="privacy" type="radio" value="2" checked/);

    const id = (
      await t.call(key, { method: "POST", url: "/api/v1/websites", form: { domain: "long.example" } })
    ).json().data.id;
    const update = await post(`/websites/${id}`, {
      csrf: await formToken(`/websites/${id}`),
      privacy: "2",
      password: "p".repeat(1025),
      timezone: "Europe/Berlin",
    });
    assert.equal(update.statusCode, 422, update.body.slice(0, 300));
    assert.match(
      update.body,
      /id="f-password-error">The password must not be greater than 128 characters \(UTF-16 code units: an emoji counts as 2 or more\)\.</,
    );
    assert.match(update.body, /<option value="Europe\/Berlin" selected>/, "the time zone is kept");
    assert.equal((await apiWebsite(id)).data.privacy, 1, "nothing was saved");
  });

  it("gives a form with a field sent twice back, saying so beside it, and changes nothing", async () => {
    const token = await formToken("/websites/new");
    const added = await post("/websites", [
      ["csrf", token],
      ["domain", "twice-a.example"],
      ["domain", "twice-b.example"],
      ["privacy", "0"],
      ["timezone", "UTC"],
    ]);
    assert.equal(added.statusCode, 422, added.body.slice(0, 300));
    assert.match(added.body, /id="f-domain-error">The domain must be given once, not 2 times\.</);
    const listed = (await t.call(key, { url: "/api/v1/websites?search=twice-" })).json();
    assert.equal(listed.meta.total, 0, "no website added");

    const id = (
      await t.call(key, { method: "POST", url: "/api/v1/websites", form: { domain: "twice.example" } })
    ).json().data.id;
    const saved = await post(`/websites/${id}`, [
      ["csrf", token],
      ["privacy", "0"],
      ["timezone", "UTC"],
      ["exclude_ips", "10.0.0.1"],
      ["exclude_ips", "10.0.0.2"],
    ]);
    assert.equal(saved.statusCode, 422, saved.body.slice(0, 300));
    assert.match(saved.body, /id="f-exclude_ips-error">The exclude ips must be given once, not 2 times\.</);
    assert.equal((await apiWebsite(id)).data.exclude_ips, null, "nothing saved");
  });

  it("counts a password's length as the field's maxlength does, an emoji as 2, as the API does", async () => {
    const website = (domain: string, password: string) => ({
      domain,
      privacy: "2",
      password,
      timezone: "UTC",
    });
    const tooLong =
      "The password must not be greater than 128 characters (UTF-16 code units: an emoji counts as 2 or more).";
    const api = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: website("emoji-api.example", "😀".repeat(65)),
    });
    assert.equal(api.statusCode, 422, api.body);
    assert.deepEqual(api.json().message, { password: [tooLong] });
    const csrf = await formToken("/websites/new");
    const form = await post("/websites", { csrf, ...website("emoji-form.example", "😀".repeat(65)) });
    assert.equal(form.statusCode, 422, form.body.slice(0, 300));
    assert.equal(/id="f-password-error">([^<]*)</.exec(form.body)?.[1], tooLong);
    // 64 fill the field's maxlength of 128: taken by both.
    const fitsApi = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: website("emoji-api.example", "😀".repeat(64)),
    });
    assert.equal(fitsApi.statusCode, 201, fitsApi.body);
    const fitsForm = await post("/websites", { csrf, ...website("emoji-form.example", "😀".repeat(64)) });
    assert.equal(fitsForm.statusCode, 303, fitsForm.body.slice(0, 300));
  });

  it("saves settings, keeping a stored password when none is typed", async () => {
    const id = (
      await t.call(key, { method: "POST", url: "/api/v1/websites", form: { domain: "settings.example" } })
    ).json().data.id;
    const csrf = await formToken(`/websites/${id}`);
    const needsPassword = await post(`/websites/${id}`, {
      csrf,
      privacy: "2",
      exclude_bots: "1",
      timezone: "UTC",
    });
    assert.equal(needsPassword.statusCode, 422);
    assert.ok(needsPassword.body.includes(PASSWORD_REQUIRED));
    const saved = await post(`/websites/${id}`, {
      csrf,
      privacy: "2",
      password: "page password",
      exclude_bots: "1",
      exclude_datacenters: "1",
      timezone: "Asia/Tokyo",
    });
    assert.equal(saved.statusCode, 303, "post/redirect/get");
    assert.equal(saved.headers.location, `/websites/${id}?saved=1`);
    assert.match((await get(`/websites/${id}?saved=1`)).body, /Settings saved\./);
    assert.doesNotMatch((await get(`/websites/${id}`)).body, /Settings saved\./);
    assert.equal((await apiWebsite(id)).data.password, true);
    assert.equal((await apiWebsite(id)).data.timezone, "Asia/Tokyo");
    assert.equal((await apiWebsite(id)).data.exclude_datacenters, 1);
    const kept = await post(`/websites/${id}`, { csrf, privacy: "2", email: "1", timezone: "Asia/Tokyo" });
    assert.equal(kept.statusCode, 303, kept.body);
    const after = (await apiWebsite(id)).data;
    assert.equal(after.password, true, "the password is kept");
    assert.equal(after.email, 1);
    assert.equal(after.exclude_bots, 0);
    assert.equal(after.exclude_datacenters, 0);
    const pageOpens = await t.app.inject({
      method: "POST",
      url: "/settings.example",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "password=page+password",
    });
    assert.equal(pageOpens.statusCode, 303, "the stats page opens with the password set here");
  });

  it("shows each website's visitors of the last 30 days of its zone, with the change", async () => {
    const id = (
      await t.call(key, {
        method: "POST",
        url: "/api/v1/websites",
        form: { domain: "trend.example", timezone: "Asia/Tokyo" },
      })
    ).json().data.id;
    // Today in Tokyo is 2026-06-01 (21:00): the last 30 days are 2026-05-03 .. 06-01, four
    // visitors (05-02 16:00 UTC is 05-03 01:00 in Tokyo), the 30 before them two. Counted in
    // UTC it would be three and three.
    const event = (ts: string, ip: string) => ({
      website_id: id,
      ts,
      page: "https://trend.example/",
      ip,
      user_agent: CHROME,
    });
    const imported = await t.call(key, {
      method: "POST",
      url: "/api/v1/events",
      json: {
        events: [
          event("2026-06-01T11:00:00Z", "81.2.69.142"),
          event("2026-06-01T11:00:00Z", "81.2.69.143"),
          event("2026-05-20T11:00:00Z", "81.2.69.144"),
          event("2026-05-02T16:00:00Z", "81.2.69.145"),
          event("2026-04-22T11:00:00Z", "81.2.69.146"),
          event("2026-04-22T11:00:00Z", "81.2.69.147"),
        ],
      },
    });
    assert.equal(imported.statusCode, 202, imported.body);
    const home = await get("/?q=trend.example");
    assert.match(
      home.body,
      /<span class="trend-count">4 visitors<span class="visually-hidden"> in the last 30 days/,
    );
    assert.match(home.body, /<span class="change up">\+100 %/);
    assert.match(home.body, /<svg class="spark"[^>]*aria-hidden="true"/);
  });

  it("lists, searches and pages the owner's websites only", async () => {
    for (let n = 1; n <= 26; n++) {
      const domain = `list-${String(n).padStart(2, "0")}.example`;
      assert.equal(
        (await t.call(key, { method: "POST", url: "/api/v1/websites", form: { domain } })).statusCode,
        201,
      );
    }
    await t.call(otherKey, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "list-other.example" },
    });
    const first = await get("/");
    assert.equal(first.statusCode, 200);
    assert.match(first.body, /Page 1 of 2/);
    assert.doesNotMatch(first.body, /list-other\.example/);
    const searched = await get("/?q=LIST-2");
    assert.match(searched.body, /list-20\.example/);
    assert.match(searched.body, /list-26\.example/);
    assert.doesNotMatch(searched.body, /list-19\.example/);
    assert.doesNotMatch(searched.body, /Page 1 of/);
    const second = await get("/?page=2");
    assert.match(second.body, /Page 2 of 2/);
    assert.match(second.body, /rel="prev"/);
    // A part given twice (an edited link) counts once, as its first value.
    const twice = await get("/?page=2&page=1&q=list&q=other");
    assert.equal(twice.statusCode, 200);
    assert.match(twice.body, /Page 2 of 2/);
    assert.equal((await get("/?q=nothing-like-this")).body.includes("No website matches this search."), true);
  });

  it("says whether hits arrive: none yet, then the latest pageview's minute", async () => {
    const id = (
      await t.call(key, { method: "POST", url: "/api/v1/websites", form: { domain: "installed.example" } })
    ).json().data.id;
    const before = await get(`/websites/${id}`);
    assert.match(before.body, /No pageview in the last 30 minutes\./);
    const hit = await t.app.inject({
      method: "POST",
      url: "/api/event",
      remoteAddress: "81.2.69.142",
      headers: { "user-agent": CHROME, "content-type": "text/plain" },
      payload: JSON.stringify({ page: "https://installed.example/", referrer: "" }),
    });
    assert.equal(hit.statusCode, 202);
    assert.equal(hit.headers["x-analytics-dropped"], undefined);
    const after = await get(`/websites/${id}`);
    assert.match(after.body, /Receiving hits: 1 pageview in the last 30 minutes, the latest at 12:00 UTC\./);
  });

  it("asks before deleting, and finds no other owner's website", async () => {
    const id = (
      await t.call(key, { method: "POST", url: "/api/v1/websites", form: { domain: "doomed.example" } })
    ).json().data.id;
    const confirm = await get(`/websites/${id}/delete`);
    assert.equal(confirm.statusCode, 200);
    assert.match(confirm.body, /Delete <span class="domain">doomed\.example<\/span>\?/);
    assert.equal((await post(`/websites/${id}/delete`, {})).statusCode, 403, "no form token");
    const deleted = await post(`/websites/${id}/delete`, { csrf: await formToken() });
    assert.equal(deleted.statusCode, 303);
    assert.equal(deleted.headers.location, "/");
    assert.equal((await t.call(key, { url: `/api/v1/websites/${id}` })).statusCode, 404);

    const others = (
      await t.call(otherKey, {
        method: "POST",
        url: "/api/v1/websites",
        form: { domain: "not-yours.example" },
      })
    ).json().data.id;
    for (const url of [
      `/websites/${others}`,
      `/websites/${others}/delete`,
      "/websites/abc",
      "/websites/0",
      `/websites/${"9".repeat(30)}`,
      `/websites/${"9".repeat(30)}/stats`,
    ]) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
      assert.match(response.body, /Website not found/);
    }
    assert.equal((await post(`/websites/${others}/delete`, { csrf: await formToken() })).statusCode, 404);
    assert.equal(
      (await t.call(otherKey, { url: `/api/v1/websites/${others}` })).statusCode,
      200,
      "still there",
    );
  });
});

describe("web app websites list order", () => {
  let t: TestApp;
  let key = "";
  let client: WebClient;

  before(async () => {
    t = await createTestApp();
    const created = await t.container.users.create({
      email: "order@owner.example",
      passwordHash: await hashPassword(PASSWORD, TEST_PASSWORD_COST),
    });
    key = created.apiKey;
    // Stored as apple.example, xn--80adxhks.example, xn--bcher-kva.example, xn--mnchen-3ya.de,
    // xylophone.example, zebra.example, and one that does not decode.
    for (const domain of [
      "zebra.example",
      "münchen.de",
      "XYLOPHONE.example",
      "москва.example",
      "apple.example",
      "Bücher.example",
      "xn--zz.example",
    ]) {
      const response = await t.call(key, { method: "POST", url: "/api/v1/websites", form: { domain } });
      assert.equal(response.statusCode, 201, response.body);
    }
    client = await signedIn(t, "order@owner.example", PASSWORD);
  });

  after(async () => {
    await t.close();
  });

  it("sorts the owner's websites by their domain as shown, not its ASCII form", async () => {
    const page = await client.get("/");
    assert.equal(page.statusCode, 200);
    const shown = [...page.body.matchAll(/<a class="site-name" href="[^"]*">([^<]*)<\/a>/g)].map((m) => m[1]);
    assert.deepEqual(shown, [
      "apple.example",
      "bücher.example",
      "münchen.de",
      "xn--zz.example",
      "xylophone.example",
      "zebra.example",
      "москва.example",
    ]);
    // The API's sort_by=domain sorts the resource's domain, its ASCII form (CONTRACT.md 3.2, 3.4).
    const api = await t.call(key, { url: "/api/v1/websites?sort_by=domain&sort=asc&per_page=10" });
    assert.deepEqual(
      api.json().data.map((website: { domain: string }) => website.domain),
      [
        "apple.example",
        "xn--80adxhks.example",
        "xn--bcher-kva.example",
        "xn--mnchen-3ya.de",
        "xn--zz.example",
        "xylophone.example",
        "zebra.example",
      ],
    );
  });
});
