import AddIcon from '@mui/icons-material/Add';
import type { SettingFieldErrors } from '../utils/setting-errors';
import { SettingEditor, type SettingDraft } from './setting-editor';

const EMPTY: SettingDraft = { name: '', value: '', description: '' };

type AddSettingFormProps = {
  adding: boolean;
  serverErrors: SettingFieldErrors;
  /** Resolves true when the setting was added, so the form can clear itself. */
  onAdd: (draft: SettingDraft) => Promise<boolean>;
};

/** A new setting's inputs and the 'Add' button of docs/product.md › Application settings, below the list. */
export function AddSettingForm({ adding, serverErrors, onAdd }: AddSettingFormProps) {
  return (
    <SettingEditor
      formLabel="Add a setting"
      initial={EMPTY}
      labels={{ name: 'New name', value: 'New value', description: 'New description' }}
      errors={serverErrors}
      busy={adding}
      submitLabel="Add"
      submitIcon={<AddIcon />}
      requireName
      onSubmit={(draft, reset) => {
        void onAdd(draft).then((added) => added && reset());
      }}
    />
  );
}
