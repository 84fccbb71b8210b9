// Every string the page shows, in English. `zh.ts` must give the same keys (the type
// `Strings` is this object's shape). One section per part of the page; a sentence with
// values is a function.

export const en = {
  /** Shared by every page: header, sign-in, settings, generic words. */
  common: {
    silver: "silver",
    signOut: "Sign out",
    language: "Language",
  },
  /** The lobby: account, rooms, queue, leaderboards, watch. */
  lobby: {},
  /** A friends' table's lobby and the live tables list. */
  friends: {},
  /** Gomoku. */
  gomoku: {},
  /** Dou Dizhu. */
  doudizhu: {},
  /** Errors in a player's words. */
  errors: {},
};

/** The shape every language's strings have. */
export type Strings = typeof en;
