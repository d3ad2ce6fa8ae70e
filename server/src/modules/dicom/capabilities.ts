/**
 * The DICOMweb Capabilities Description (PS3.18 §8.9, Annex H): a WADL document with one
 * `resources` element whose base is the service URL, and a `resource` per path of what this server
 * implements, each with its methods, the Accept options it answers and its query parameters. The
 * same tree as JSON for clients that ask for application/json. Built from the table below: it
 * lists only what the routes do (docs/decisions.md › Rendered resources, QIDO and capabilities).
 */
interface Method {
  /** PS3.18 transaction name, WADL method id. */
  id: string;
  name: 'GET' | 'POST';
  accept: string[];
  query?: string[];
  /** The request body's media type (STOW-RS). */
  body?: string;
}
interface Resource {
  path: string;
  methods: Method[];
  children?: Resource[];
}

const QIDO_JSON = ['application/dicom+json', 'application/json'];
const QIDO_QUERY = [
  'StudyInstanceUID',
  'SeriesInstanceUID',
  'SOPInstanceUID',
  'PatientID',
  'Modality',
  'ModalitiesInStudy',
  'StudyDate',
  'PatientName',
  'AccessionNumber',
  'StudyDescription',
  'includefield',
  'limit',
  'offset',
  'fuzzymatching',
];
const DICOM = [
  'multipart/related; type="application/dicom"; transfer-syntax=*',
  'multipart/related; type="application/dicom"',
  'multipart/related; type="application/dicom"; transfer-syntax=1.2.840.10008.1.2.1',
];
const METADATA = ['application/dicom+json'];
const RENDERED_ONE = ['image/jpeg', 'image/png'];
const RENDERED_MANY = ['multipart/related; type="image/jpeg"', 'multipart/related; type="image/png"'];
const RENDERED_QUERY = ['window', 'quality', 'viewport'];
const FRAMES = [
  'multipart/related; type="application/octet-stream"; transfer-syntax=*',
  'multipart/related; type="application/octet-stream"',
  'multipart/related; type="image/jpeg"',
  'multipart/related; type="image/jls"',
  'multipart/related; type="image/jp2"',
  'multipart/related; type="image/dicom-rle"',
];

const get = (id: string, accept: string[], query?: string[]): Method => ({
  id,
  name: 'GET',
  accept,
  ...(query ? { query } : {}),
});
/** STOW-RS (stow.routes.ts): the patient named by ?patientId (or the X-MedShare-Patient header). */
const store = (id: string): Method => ({
  id,
  name: 'POST',
  accept: ['application/dicom+json'],
  query: ['patientId'],
  body: 'multipart/related; type="application/dicom"',
});
const rendered = (id: string, many: boolean): Resource => ({
  path: 'rendered',
  methods: [get(id, many ? RENDERED_MANY : RENDERED_ONE, RENDERED_QUERY)],
});

export const CAPABILITIES: Resource[] = [
  {
    path: 'studies',
    methods: [get('SearchForStudies', QIDO_JSON, QIDO_QUERY), store('StoreInstances')],
    children: [
      {
        path: '{StudyInstanceUID}',
        methods: [get('RetrieveStudy', DICOM), store('StoreStudyInstances')],
        children: [
          { path: 'metadata', methods: [get('RetrieveStudyMetadata', METADATA)] },
          rendered('RetrieveRenderedStudy', true),
          { path: 'instances', methods: [get('SearchForStudyInstances', QIDO_JSON, QIDO_QUERY)] },
          {
            path: 'series',
            methods: [get('SearchForStudySeries', QIDO_JSON, QIDO_QUERY)],
            children: [
              {
                path: '{SeriesInstanceUID}',
                methods: [get('RetrieveSeries', DICOM)],
                children: [
                  { path: 'metadata', methods: [get('RetrieveSeriesMetadata', METADATA)] },
                  rendered('RetrieveRenderedSeries', true),
                  {
                    path: 'instances',
                    methods: [get('SearchForSeriesInstances', QIDO_JSON, QIDO_QUERY)],
                    children: [
                      {
                        path: '{SOPInstanceUID}',
                        methods: [get('RetrieveInstance', DICOM)],
                        children: [
                          { path: 'metadata', methods: [get('RetrieveInstanceMetadata', METADATA)] },
                          rendered('RetrieveRenderedInstance', false),
                          {
                            path: 'frames',
                            methods: [],
                            children: [
                              {
                                path: '{FrameList}',
                                methods: [get('RetrieveFrames', FRAMES)],
                                children: [rendered('RetrieveRenderedFrame', false)],
                              },
                            ],
                          },
                        ],
                      },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
  },
  { path: 'series', methods: [get('SearchForSeries', QIDO_JSON, QIDO_QUERY)] },
  { path: 'instances', methods: [get('SearchForInstances', QIDO_JSON, QIDO_QUERY)] },
];

const escape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function methodXml(m: Method, pad: string): string {
  const options = m.accept.map((a) => `${pad}      <option value="${escape(a)}"/>`).join('\n');
  const query = (m.query ?? []).map((q) => `${pad}    <param name="${q}" style="query" required="false"/>`).join('\n');
  const representations = [...new Set(m.accept.map((a) => a.split(';')[0]!))]
    .map((t) => `${pad}    <representation mediaType="${escape(t)}"/>`)
    .join('\n');
  const body = m.body ? [`${pad}    <representation mediaType="${escape(m.body)}"/>`] : [];
  return [
    `${pad}<method name="${m.name}" id="${m.id}">`,
    `${pad}  <request>`,
    `${pad}    <param name="Accept" style="header" default="${escape(m.accept[0]!)}">`,
    options,
    `${pad}    </param>`,
    ...(query ? [query] : []),
    // WADL: a request's params come before its representations.
    ...body,
    `${pad}  </request>`,
    // STOW-RS answers 200 (all stored), 202 (some) or 409 (none), each with its response data set.
    `${pad}  <response status="${m.name === 'POST' ? '200 202 409' : '200'}">`,
    representations,
    `${pad}  </response>`,
    `${pad}</method>`,
  ].join('\n');
}

function resourceXml(r: Resource, pad: string): string {
  const inner = [
    ...r.methods.map((m) => methodXml(m, `${pad}  `)),
    ...(r.children ?? []).map((c) => resourceXml(c, `${pad}  `)),
  ];
  return [`${pad}<resource path="${escape(r.path)}">`, ...inner, `${pad}</resource>`].join('\n');
}

/** The WADL document for the service at `base` (the DICOMweb root URL). */
export function capabilitiesWadl(base: string): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<application xmlns="http://wadl.dev.java.net/2009/02">',
    `  <resources base="${escape(base)}">`,
    ...CAPABILITIES.map((r) => resourceXml(r, '    ')),
    '  </resources>',
    '</application>',
    '',
  ].join('\n');
}

/** The same tree as JSON. */
export function capabilitiesJson(base: string) {
  return { base, resources: CAPABILITIES };
}
