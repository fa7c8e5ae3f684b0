/** What the migration command needs in production (see loadConfig's requiredInProduction). */
export const MIGRATE_REQUIRED_IN_PRODUCTION = {
  DATABASE_URL: 'the Postgres URL the migrations run on (direct, or a pooler in session mode)',
} as const;
