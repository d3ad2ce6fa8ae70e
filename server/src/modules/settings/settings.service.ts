import {
  type AppSetting,
  type CreateSettingBody,
  KnownSettings,
  KnownSettingValueSchemas,
  type KnownSettingName,
  type PublicSettings,
  SettingMessages,
  type UpdateSettingBody,
} from '@medshare/contracts';
import { badRequest, conflict, forbidden, isUniqueViolation, notFound, validationFailed } from '../../errors.ts';
import type { Db } from '../../db/db.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/actor.ts';
import { type SettingsRepository, createSettingsRepository } from './settings.repository.ts';

export interface EffectiveSettings {
  maxUploadMb: number;
  /** Most files and MB of one study import in the web app (the web refuses past them before sending). */
  maxImportFiles: number;
  maxImportMb: number;
  shareExpiryHours: number;
  shareExpiryMaxHours: number;
  externalShareMaxHours: number;
  otpTtlMinutes: number;
  sessionIdleMinutes: number;
  displayLocale: string;
  displayTimeZone: string;
}

const CACHE_MS = 5_000;

/** A known setting whose stored value is missing or invalid falls back to its default. */
function valueOf(rows: Map<string, string>, name: KnownSettingName): string {
  const raw = rows.get(name);
  if (raw !== undefined && KnownSettingValueSchemas[name].safeParse(raw).success) return raw.trim();
  return KnownSettings[name].default;
}

function knownName(name: string): KnownSettingName | null {
  const lower = name.toLowerCase();
  return Object.hasOwn(KnownSettings, lower) ? (lower as KnownSettingName) : null;
}

type SettingRow = NonNullable<Awaited<ReturnType<SettingsRepository['getById']>>>;

function present(row: SettingRow): AppSetting {
  return {
    id: row.id,
    name: row.name,
    value: row.value,
    description: row.description,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function createSettingsService({ db, audit }: { db: Db; audit: AuditService }) {
  const repo = createSettingsRepository(db);
  /** A change and its audit row commit together (docs/security.md › Audit trail). */
  const audited = audit.transactor(db, (trx) => ({ settings: createSettingsRepository(trx) }));
  let cached: { at: number; value: EffectiveSettings } | null = null;

  async function effective(): Promise<EffectiveSettings> {
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.value;
    const rows = new Map((await repo.list()).map((r) => [r.name.toLowerCase(), r.value]));
    const value: EffectiveSettings = {
      maxUploadMb: Number(valueOf(rows, 'max_upload_mb')),
      maxImportFiles: Number(valueOf(rows, 'max_import_files')),
      maxImportMb: Number(valueOf(rows, 'max_import_mb')),
      shareExpiryHours: Number(valueOf(rows, 'share_expiry_hours')),
      shareExpiryMaxHours: Number(valueOf(rows, 'share_expiry_max_hours')),
      externalShareMaxHours: Number(valueOf(rows, 'external_share_max_hours')),
      otpTtlMinutes: Number(valueOf(rows, 'otp_ttl_minutes')),
      sessionIdleMinutes: Number(valueOf(rows, 'session_idle_minutes')),
      displayLocale: valueOf(rows, 'display_locale'),
      displayTimeZone: valueOf(rows, 'display_time_zone'),
    };
    cached = { at: Date.now(), value };
    return value;
  }

  function invalidate() {
    cached = null;
  }

  function requireManage(actor: Actor) {
    if (!actor.permissions.has('settings:manage')) throw forbidden();
  }

  /** A known setting's value must pass its rule; it is stored trimmed. */
  function checkedValue(known: KnownSettingName | null, value: string): string {
    if (!known) return value;
    const parsed = KnownSettingValueSchemas[known].safeParse(value);
    if (!parsed.success)
      throw validationFailed([{ field: 'value', message: parsed.error.issues[0]?.message ?? 'Invalid value' }]);
    return parsed.data.trim();
  }

  /**
   * The default share expiry must fit its maximum. Checked in the writing transaction against both
   * rows as committed, locked until it ends: neither another instance's change still hidden by this
   * one's 5 s cache, nor a concurrent change of the other setting, can slip a pair past it.
   */
  async function checkExpiryPair(settings: SettingsRepository, known: KnownSettingName | null, value: string) {
    if (known !== 'share_expiry_hours' && known !== 'share_expiry_max_hours') return;
    const pair = await settings.lockValues(['share_expiry_hours', 'share_expiry_max_hours']);
    // A missing or unreadable row counts as its default, as everywhere else (`valueOf`).
    const hours = Number(known === 'share_expiry_hours' ? value : valueOf(pair, 'share_expiry_hours'));
    const max = Number(known === 'share_expiry_max_hours' ? value : valueOf(pair, 'share_expiry_max_hours'));
    if (hours <= max) return;
    throw validationFailed([
      known === 'share_expiry_hours'
        ? { field: 'value', message: `Must not exceed share_expiry_max_hours (${max})` }
        : { field: 'value', message: `Must not be below share_expiry_hours (${hours})` },
    ]);
  }

  const nameTaken = () => conflict(SettingMessages.nameTaken, [{ field: 'name', message: SettingMessages.nameTaken }]);

  /**
   * The audit reason names the setting; values only for known settings (numbers, locale, zone),
   * since an admin-defined setting may hold a secret.
   */
  function reason(name: string, known: KnownSettingName | null, change?: { from?: string; to?: string }) {
    if (!known || !change) return `name=${name}`;
    const parts = [`name=${name}`];
    if (change.from !== undefined) parts.push(`from=${change.from}`);
    if (change.to !== undefined) parts.push(`to=${change.to}`);
    return parts.join('; ');
  }

  return {
    /** The values that drive behaviour, cached briefly so hot paths do not query each time. */
    effective,
    invalidate,

    /** What the web app needs before sign-in, and the limits it checks an upload or import against before sending. */
    async publicSettings(): Promise<PublicSettings> {
      const s = await effective();
      return {
        displayLocale: s.displayLocale,
        displayTimeZone: s.displayTimeZone,
        maxUploadMb: s.maxUploadMb,
        maxImportFiles: s.maxImportFiles,
        maxImportMb: s.maxImportMb,
      };
    },

    async list(actor: Actor): Promise<AppSetting[]> {
      requireManage(actor);
      return (await repo.list()).map(present);
    },

    async create(actor: Actor, input: CreateSettingBody['setting']): Promise<AppSetting> {
      requireManage(actor);
      const known = knownName(input.name);
      if (await repo.getByName(input.name)) throw nameTaken();
      const value = checkedValue(known, input.value);
      const row = await audited
        .run(async ({ settings, audit: auditInTx }) => {
          await checkExpiryPair(settings, known, value);
          const created = await settings.create({
            name: known ?? input.name,
            value,
            description: input.description || null,
          });
          await auditInTx([
            {
              userId: actor.userId,
              action: 'settings.create',
              table: 'app_settings',
              recordId: created.id,
              ip: actor.ip,
              reason: reason(created.name, known, { to: value }),
            },
          ]);
          return created;
        })
        .catch((err: unknown) => {
          if (isUniqueViolation(err)) throw nameTaken();
          throw err;
        });
      invalidate();
      return present(row);
    },

    async update(actor: Actor, id: string, input: UpdateSettingBody): Promise<AppSetting> {
      requireManage(actor);
      if (input.id !== undefined && input.id !== id)
        throw badRequest('The id in the body does not match the path', [
          { field: 'id', message: 'Does not match the path' },
        ]);
      const existing = await repo.getById(id);
      if (!existing) throw notFound('Setting not found');
      const wasKnown = knownName(existing.name);
      const known = knownName(input.name);
      if (wasKnown && known !== wasKnown)
        throw conflict(SettingMessages.knownRename, [{ field: 'name', message: SettingMessages.knownRename }]);
      const other = await repo.getByName(input.name);
      if (other && other.id !== id) throw nameTaken();
      const value = checkedValue(known, input.value);
      const row = await audited
        .run(async ({ settings, audit: auditInTx }) => {
          await checkExpiryPair(settings, known, value);
          // What the audit row says it was: the row as it is now, locked (after the pair's locks, in
          // their order), not as read before the transaction, which another edit may have changed.
          const before = await settings.lockById(id);
          if (!before) throw notFound('Setting not found');
          const updated = await settings.update(id, {
            name: known ?? input.name,
            value,
            description: input.description || null,
          });
          if (!updated) throw notFound('Setting not found');
          const renamed = before.name !== updated.name ? `; renamed from ${before.name}` : '';
          await auditInTx([
            {
              userId: actor.userId,
              action: 'settings.update',
              table: 'app_settings',
              recordId: id,
              ip: actor.ip,
              reason: reason(updated.name, known, { from: before.value, to: value }) + renamed,
            },
          ]);
          return updated;
        })
        .catch((err: unknown) => {
          if (isUniqueViolation(err)) throw nameTaken();
          throw err;
        });
      invalidate();
      return present(row);
    },

    /** Known (seeded) settings drive behaviour and stay; others may go. */
    async remove(actor: Actor, id: string): Promise<void> {
      requireManage(actor);
      const existing = await repo.getById(id);
      if (!existing) throw notFound('Setting not found');
      if (knownName(existing.name)) throw conflict(SettingMessages.knownUndeletable);
      await audited.run(async ({ settings, audit: auditInTx }) => {
        const row = await settings.delete(id);
        if (!row) throw notFound('Setting not found');
        await auditInTx([
          {
            userId: actor.userId,
            action: 'settings.delete',
            table: 'app_settings',
            recordId: id,
            ip: actor.ip,
            reason: reason(row.name, null),
          },
        ]);
      });
      invalidate();
    },
  };
}
export type SettingsService = ReturnType<typeof createSettingsService>;
