import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { AppSetting } from '@medshare/contracts';
import { useEffect, useState } from 'react';
import { DelayedCircularProgress } from '../../../components/ui/delayed-progress';
import { ApiError } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/display-settings';
import { toast } from '../../../lib/notify';
import { usePublicSettings } from '../../../lib/public-settings';
import { useAddSettingMutation } from '../api/add-setting';
import { useDeleteSettingMutation } from '../api/delete-setting';
import { useListSettingsQuery } from '../api/list-settings';
import { useUpdateSettingMutation } from '../api/update-setting';
import { UNREACHABLE, fieldErrorsOf, toastSettingError, type SettingFieldErrors } from '../utils/setting-errors';
import { AddSettingForm } from './add-setting-form';
import { SettingCard } from './setting-card';
import { SETTING_COLUMNS, SettingRow, type SettingDraft } from './setting-row';

/** Fixed shares of the card's width: the table fits its card instead of scrolling sideways. */
const COLUMNS = [
  { name: 'Name', width: '24%' },
  { name: 'Value', width: '15%' },
  { name: 'Description', width: 'auto' },
  { name: 'Created-at', width: '13%' },
  { name: 'Updated-at', width: '13%' },
  { name: 'Actions', width: 96 },
] as const;
const NO_SETTINGS = 'No settings yet. Add one with the form below.';
/** Below this width the six columns would be cut: each setting becomes a card. */
const CARDS_BELOW = 900;

function loadErrorText(error: unknown): string {
  if (error instanceof ApiError && error.status === 403) return 'Only administrators can manage application settings.';
  if (error instanceof ApiError && error.status === 0) return UNREACHABLE;
  return error instanceof ApiError && error.message ? error.message : 'Settings could not be loaded.';
}

export function SettingsPage() {
  const list = useListSettingsQuery();
  const settings = list.data ?? [];
  const [updateSetting, { isLoading: saving }] = useUpdateSettingMutation();
  const [addSetting, { isLoading: adding }] = useAddSettingMutation();
  const [deleteSetting, { isLoading: deleting }] = useDeleteSettingMutation();
  const [editingId, setEditingId] = useState<string | null>(null);
  const [editErrors, setEditErrors] = useState<SettingFieldErrors>({});
  const [addErrors, setAddErrors] = useState<SettingFieldErrors>({});
  const [confirmDelete, setConfirmDelete] = useState<AppSetting | null>(null);
  const [unreachable, setUnreachable] = useState(false);
  // Dates follow the public settings, which every write here refreshes.
  const display = usePublicSettings();
  const formatDate = (iso: string) => formatDateTime(iso, display);
  const phone = useMediaQuery(`(max-width:${CARDS_BELOW - 0.05}px)`, { noSsr: true });

  useEffect(() => {
    if (list.error) console.error('Failed to fetch settings', list.error);
  }, [list.error]);

  const startEdit = (id: string) => {
    setEditingId(id);
    setEditErrors({});
  };

  const save = async (setting: AppSetting, draft: SettingDraft) => {
    try {
      const result = await updateSetting({
        id: setting.id,
        body: { name: draft.name.trim(), value: draft.value, description: draft.description.trim() || null },
      }).unwrap();
      setEditingId(null);
      setEditErrors({});
      toast.success(result.message ?? 'Setting updated');
    } catch (error) {
      console.error('Failed to update setting', error);
      setEditErrors(fieldErrorsOf(error));
      toastSettingError(error, 'The setting could not be saved.');
    }
  };

  const add = async (draft: SettingDraft): Promise<boolean> => {
    try {
      const result = await addSetting({
        name: draft.name.trim(),
        value: draft.value,
        description: draft.description.trim() || null,
      }).unwrap();
      setAddErrors({});
      toast.success(result.message ?? 'Setting added');
      return true;
    } catch (error) {
      console.error('Failed to add setting', error);
      setAddErrors(fieldErrorsOf(error));
      toastSettingError(error, 'The setting could not be added.');
      return false;
    }
  };

  const remove = async (setting: AppSetting) => {
    try {
      const result = await deleteSetting(setting.id).unwrap();
      toast.success(result.message ?? 'Setting deleted');
    } catch (error) {
      console.error('Failed to delete setting', error);
      if (error instanceof ApiError && error.status === 0) setUnreachable(true);
      else toastSettingError(error, 'The setting could not be deleted.');
    } finally {
      setConfirmDelete(null);
    }
  };

  if (list.isLoading) {
    return (
      <Box sx={{ display: 'grid', placeItems: 'center', minHeight: 200 }}>
        <DelayedCircularProgress aria-label="Loading settings" />
      </Box>
    );
  }
  if (list.isError) return <Alert severity="error">{loadErrorText(list.error)}</Alert>;

  const itemProps = (setting: AppSetting) => ({
    setting,
    editing: editingId === setting.id,
    saving,
    errors: editingId === setting.id ? editErrors : {},
    formatDate,
    onEdit: () => startEdit(setting.id),
    onCancel: () => {
      setEditingId(null);
      setEditErrors({});
    },
    onSave: (draft: SettingDraft) => void save(setting, draft),
    onDelete: () => setConfirmDelete(setting),
  });
  // The edit form remounts when a row enters edit mode, so it starts from the saved values.
  const itemKey = (setting: AppSetting) => `${setting.id}-${editingId === setting.id ? 'edit' : 'view'}`;
  const addForm = <AddSettingForm adding={adding} serverErrors={addErrors} onAdd={add} />;

  return (
    <>
      <Paper variant="outlined" role="region" aria-label="Application settings">
        {phone ? (
          <Box sx={{ p: 1.5, display: 'grid', gap: 1.5 }}>
            {settings.length === 0 ? (
              <Typography color="text.secondary">{NO_SETTINGS}</Typography>
            ) : (
              <Box component="ul" aria-label="Settings" sx={{ m: 0, p: 0, display: 'grid', gap: 1.5 }}>
                {settings.map((setting) => (
                  <SettingCard key={itemKey(setting)} {...itemProps(setting)} />
                ))}
              </Box>
            )}
            <Box sx={{ p: 2, borderRadius: 1, bgcolor: 'action.hover' }}>
              <Typography component="h2" variant="subtitle2" sx={{ mb: 1.5 }}>
                Add a setting
              </Typography>
              {addForm}
            </Box>
          </Box>
        ) : (
          <Table size="small" sx={{ tableLayout: 'fixed', width: '100%' }}>
            <TableHead>
              <TableRow>
                {COLUMNS.map(({ name, width }) => (
                  <TableCell key={name} scope="col" sx={{ fontWeight: 700, width }}>
                    {name}
                  </TableCell>
                ))}
              </TableRow>
            </TableHead>
            <TableBody>
              {settings.length === 0 && (
                <TableRow>
                  <TableCell colSpan={SETTING_COLUMNS} sx={{ color: 'text.secondary' }}>
                    {NO_SETTINGS}
                  </TableCell>
                </TableRow>
              )}
              {settings.map((setting) => (
                <SettingRow key={itemKey(setting)} {...itemProps(setting)} />
              ))}
              <TableRow sx={{ bgcolor: 'action.hover' }}>
                <TableCell colSpan={SETTING_COLUMNS} sx={{ py: 2 }}>
                  {addForm}
                </TableCell>
              </TableRow>
            </TableBody>
          </Table>
        )}
      </Paper>

      <Dialog
        open={confirmDelete !== null}
        onClose={() => !deleting && setConfirmDelete(null)}
        aria-labelledby="delete-setting-title"
        aria-describedby="delete-setting-text"
      >
        <DialogTitle id="delete-setting-title">Delete setting?</DialogTitle>
        <DialogContent>
          <DialogContentText id="delete-setting-text">
            The setting <strong>{confirmDelete?.name}</strong> will be removed. This cannot be undone.
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirmDelete(null)} disabled={deleting}>
            Cancel
          </Button>
          <Button
            color="error"
            variant="contained"
            onClick={() => confirmDelete && void remove(confirmDelete)}
            disabled={deleting}
          >
            Delete
          </Button>
        </DialogActions>
      </Dialog>

      {/* docs/product.md › Messages and errors asks for an alert with this text; an alert dialog says it accessibly. */}
      <Dialog
        open={unreachable}
        onClose={() => setUnreachable(false)}
        role="alertdialog"
        aria-labelledby="unreachable-title"
        aria-describedby="unreachable-text"
      >
        <DialogTitle id="unreachable-title">Connection problem</DialogTitle>
        <DialogContent>
          <DialogContentText id="unreachable-text">{UNREACHABLE}</DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button variant="contained" onClick={() => setUnreachable(false)} autoFocus>
            OK
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}
