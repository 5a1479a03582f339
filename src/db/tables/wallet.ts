// Table types of the wallet module (camelCase; CamelCasePlugin maps them to snake_case columns).
// biome-ignore lint/complexity/noBannedTypes: filled in as the module's tables are added
export type WalletTables = {}
