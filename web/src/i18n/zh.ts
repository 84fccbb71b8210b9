// Every string the page shows, in 简体中文: the same keys as `en.ts`.

import type { Strings } from "./en.js";

export const zh: Strings = {
  common: {
    silver: "银子",
    signOut: "退出",
    language: "语言",
  },
  lobby: {},
  friends: {},
  gomoku: {},
  doudizhu: {},
  errors: {},
};
