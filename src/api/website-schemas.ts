// HTTP schemas of the websites API: the resource as returned, the create and update form
// bodies and the list query. Allowed values and defaults come from websites/website-rules.

import { Type } from "typebox";
import {
  FLAG_VALUES,
  PASSWORD_MAX_LENGTH,
  PRIVACY_VALUES,
  WEBSITE_DEFAULTS,
} from "../websites/website-rules.js";
import { integerEnum, PagedList, PageParam, PerPageParam, stringEnum } from "./schema-types.js";

const nullableText = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const Website = Type.Object(
  {
    id: Type.Integer({ description: "Identifier, assigned in creation order." }),
    domain: Type.String({
      description:
        "Normalised domain: lowercase, no scheme or www., punycode. The website's key (URLs, lookups).",
    }),
    domain_unicode: Type.String({
      description:
        "The domain as people read it: an internationalised name in Unicode (münchen.de for xn--mnchen-3ya.de); the same as domain otherwise.",
    }),
    privacy: integerEnum(PRIVACY_VALUES, { description: "0 Public, 1 Private, 2 Password." }),
    password: Type.Boolean({ description: "Whether a password is set (it is never returned)." }),
    email: integerEnum(FLAG_VALUES, { description: "1 when the website is in its owner's email reports." }),
    exclude_bots: integerEnum(FLAG_VALUES, { description: "1 when hits from bots are dropped." }),
    exclude_datacenters: integerEnum(FLAG_VALUES, {
      description: "1 when hits from data-centre networks (cloud and server hosting) are dropped.",
    }),
    exclude_params: nullableText("Excluded query parameters, one per line (`&` strips the whole query)."),
    exclude_ips: nullableText("Excluded IP addresses and CIDR blocks, one per line."),
    timezone: Type.String({
      description: "IANA time zone (e.g. Europe/Berlin) of the statistics' days and hours; UTC by default.",
    }),
    created_at: Type.String({ description: "ISO-8601 UTC with microseconds." }),
    updated_at: Type.String({ description: "ISO-8601 UTC with microseconds." }),
  },
  { title: "Website" },
);

const settingsFields = (withDefaults: boolean) => {
  const fallback = (value: number) => (withDefaults ? { default: value } : {});
  return {
    privacy: Type.Optional(
      integerEnum(PRIVACY_VALUES, {
        description: "0 Public, 1 Private, 2 Password.",
        ...fallback(WEBSITE_DEFAULTS.privacy),
      }),
    ),
    password: Type.Optional(
      Type.String({
        maxLength: PASSWORD_MAX_LENGTH,
        description: "Password of the stats page, used when privacy is 2. Empty clears it.",
      }),
    ),
    email: Type.Optional(
      integerEnum(FLAG_VALUES, {
        description: "Email reports: 0 off, 1 on.",
        ...fallback(WEBSITE_DEFAULTS.email),
      }),
    ),
    exclude_bots: Type.Optional(
      integerEnum(FLAG_VALUES, {
        description: "Drop hits from bots: 0 no, 1 yes.",
        ...fallback(WEBSITE_DEFAULTS.excludeBots),
      }),
    ),
    exclude_datacenters: Type.Optional(
      integerEnum(FLAG_VALUES, {
        description:
          "Drop hits from data-centre networks (cloud, VPS and server hosting, where scrapers and monitors run): 0 no, 1 yes. The networks are listed in the README.",
        ...fallback(WEBSITE_DEFAULTS.excludeDatacenters),
      }),
    ),
    exclude_params: Type.Optional(
      Type.String({
        "x-rule": "param-list",
        description:
          "Query parameters to strip from page URLs, separated by newlines or commas; `&` strips the whole query.",
      }),
    ),
    exclude_ips: Type.Optional(
      Type.String({
        "x-rule": "ip-list",
        description:
          "IP addresses or CIDR blocks (IPv4 or IPv6) whose hits are dropped, separated by newlines or commas.",
      }),
    ),
    timezone: Type.Optional(
      Type.String({
        "x-rule": "time-zone",
        description:
          "IANA time zone name (Europe/Berlin, America/New_York, UTC) whose days and hours the statistics count in. Changing it re-counts all stored history in the new zone.",
        ...(withDefaults ? { default: WEBSITE_DEFAULTS.timezone } : {}),
      }),
    ),
  };
};

export const CreateWebsiteBody = Type.Object({
  domain: Type.String({
    "x-rule": "domain",
    description: "The website's domain, e.g. example.com (scheme, www. and a trailing / are removed).",
  }),
  ...settingsFields(true),
});

export const UpdateWebsiteBody = Type.Object(settingsFields(false), {
  description: "Only the fields sent are changed; an empty value clears a text field.",
});

export const ListWebsitesQuery = Type.Object({
  search: Type.Optional(
    Type.String({
      description:
        "Case-insensitive substring of the domain, in its ASCII (punycode) or its Unicode form; % and _ are literal.",
    }),
  ),
  search_by: Type.Optional(stringEnum(["domain"], { default: "domain" })),
  sort_by: Type.Optional(
    stringEnum(["id", "domain"], { default: "id", description: "id is creation order." }),
  ),
  sort: Type.Optional(stringEnum(["desc", "asc"], { default: "desc" })),
  per_page: PerPageParam,
  page: PageParam,
});

export const WebsiteList = PagedList(Website);

export const WebsiteEnvelope = (status: 200 | 201) =>
  Type.Object({ data: Website, status: Type.Literal(status) });

export const WebsiteDeleted = Type.Object({
  id: Type.Integer(),
  object: Type.Literal("website"),
  deleted: Type.Literal(true),
  status: Type.Literal(200),
});
